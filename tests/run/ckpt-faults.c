/* ckpt-faults.c: an LD_PRELOAD shim for tests/run/ckpt-faults.sh that makes
 * one call on a checkpoint's files fail, as a full disk or a failing one
 * would.  SAP_FAULT=OP:N:ERR fails the Nth call of OP (write, fsync or
 * rename) on a file whose path has "/ckpt-" in it (not the rename of the
 * directory that makes a checkpoint's), with errno ERR
 * (ENOSPC or EIO), or every call from the Nth on with OP:N+:ERR (a disk
 * that stays full), on the rank SAP_FAULT_RANK (default 0) of the job
 * (OMPI_COMM_WORLD_RANK; 0 without mpiexec).  A failing write first
 * writes half of what it was given, as a full disk does. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

enum { MAXFD = 4096 };
static char ours[MAXFD];        /* fds of checkpoint files */
static int calls;

static bool armed(const char *op)
{
	const char *f = getenv("SAP_FAULT");
	const char *r = getenv("SAP_FAULT_RANK"), *me = getenv("OMPI_COMM_WORLD_RANK");
	if (!f || strncmp(f, op, strlen(op)) || f[strlen(op)] != ':')
		return false;
	if (atoi(r ? r : "0") != atoi(me ? me : "0"))
		return false;
	char *end;
	long n = strtol(f + strlen(op) + 1, &end, 10);
	return *end == '+' ? ++calls >= n : ++calls == n;
}

static int fault(void)
{
	const char *f = strrchr(getenv("SAP_FAULT"), ':');
	return f && !strcmp(f + 1, "EIO") ? EIO : ENOSPC;
}

static bool ckpt_path(const char *p)
{
	return p && strstr(p, "/ckpt-");
}

int open(const char *path, int flags, ...)
{
	static int (*real)(const char *, int, ...);
	if (!real)
		real = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
	va_list ap;
	va_start(ap, flags);
	mode_t mode = (flags & O_CREAT) ? va_arg(ap, mode_t) : 0;
	va_end(ap);
	int fd = real(path, flags, mode);
	if (fd >= 0 && fd < MAXFD)
		ours[fd] = ckpt_path(path);
	return fd;
}

ssize_t write(int fd, const void *buf, size_t n)
{
	static ssize_t (*real)(int, const void *, size_t);
	if (!real)
		real = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
	if (fd >= 0 && fd < MAXFD && ours[fd] && armed("write")) {
		if (n > 1)
			real(fd, buf, n / 2);
		errno = fault();
		return -1;
	}
	return real(fd, buf, n);
}

int fsync(int fd)
{
	static int (*real)(int);
	if (!real)
		real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
	if (fd >= 0 && fd < MAXFD && ours[fd] && armed("fsync")) {
		errno = fault();
		return -1;
	}
	return real(fd);
}

int rename(const char *from, const char *to)
{
	static int (*real)(const char *, const char *);
	if (!real)
		real = (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "rename");
	struct stat st;
	if (ckpt_path(to) && !(stat(from, &st) == 0 && S_ISDIR(st.st_mode)) && armed("rename")) {
		errno = fault();
		return -1;
	}
	return real(from, to);
}
