/* Synthetic async loops (see synth.h). */
#include <stdlib.h>
#include <string.h>
#include "synth.h"

static void dv_make(sap_dvec *v, const char *name, int64_t n, size_t elsize)
{
	sap_dv_create(v, name, n, elsize, NULL);
}

/* ---- SGDMF ---- */

void sgd_reset(sgd *m, uint64_t seed)
{
	uint64_t s = seed ^ 0x5eed;
	float *w = (float *)m->W.data, *h = (float *)m->H.data;
	for (int64_t k = 0; k < m->W.n * SYNTH_K; k++)
		w[k] = (float)synth_below(&s, 1000) * 1e-4f;
	for (int64_t k = 0; k < m->H.n * SYNTH_K; k++)
		h[k] = (float)synth_below(&s, 1000) * 1e-4f;
}

void sgd_make(sgd *m, int64_t nr, int64_t nu, int64_t nv, uint64_t seed)
{
	memset(m, 0, sizeof *m);
	dv_make(&m->A, "A", nr, sizeof(rating));
	dv_make(&m->W, "W", nu, SYNTH_K * sizeof(float));
	dv_make(&m->H, "H", nv, SYNTH_K * sizeof(float));
	uint64_t s = seed;
	rating *a = (rating *)m->A.data;
	for (int64_t i = 0; i < nr; i++) {
		a[i].u = (int32_t)synth_below(&s, nu);
		a[i].v = (int32_t)synth_below(&s, nv);
		a[i].r = 1.0f + (float)synth_below(&s, 5);
	}
	sgd_reset(m, seed);
	m->gamma = 0.01f;
	m->lambda = 0.05f;
	m->dds[0] = (sap_dds){ .name = "A", .dv = &m->A, .mode = SAP_READ, .slice_reads = true };
	m->dds[1] = (sap_dds){ .name = "W", .dv = &m->W, .mode = SAP_RW };
	m->dds[2] = (sap_dds){ .name = "H", .dv = &m->H, .mode = SAP_RW };
	m->spec = (sap_async_spec){ .dds = m->dds, .ndds = 3, .slice = sgd_slice };
}

void sgd_free(sgd *m)
{
	sap_dv_free(&m->A);
	sap_dv_free(&m->W);
	sap_dv_free(&m->H);
}

/* As sapc emits samples/sgdmf.sap's training loop. */
void sgd_body(void *env, const int64_t *idx, int64_t lo, int64_t hi, void *red)
{
	(void)red;
	sgd *m = env;
	for (int64_t k = lo; k < hi; k++) {
		int64_t i = idx ? idx[k] : k;
		rating a = *(rating *)sap_dv_at(&m->A, i, NULL);
		float *w = sap_dv_at(&m->W, a.u, NULL);
		float *h = sap_dv_at(&m->H, a.v, NULL);
		float err = a.r - sap_dot_f(w, h, SYNTH_K);
		float wk[SYNTH_K];
		for (int k = 0; k < SYNTH_K; k++)
			wk[k] = w[k];
		for (int k = 0; k < SYNTH_K; k++)
			w[k] += m->gamma * (err * h[k] - m->lambda * wk[k]);
		for (int k = 0; k < SYNTH_K; k++)
			h[k] += m->gamma * (err * wk[k] - m->lambda * h[k]);
	}
}

void sgd_slice(void *env, const int64_t *idx, int64_t lo, int64_t hi, sap_rec *rec)
{
	sgd *m = env;
	const rating *a = (const rating *)m->A.data;
	for (int64_t k = lo; k < hi; k++) {
		int64_t i = idx ? idx[k] : k;
		sap_rec_begin(rec, i);
		sap_rec_key(rec, 1, a[i].u, SAP_RW);
		sap_rec_key(rec, 2, a[i].v, SAP_RW);
	}
	m->sliced += hi - lo;
}

/* ---- TransE ---- */

static void transe_slice(void *env, const int64_t *idx, int64_t lo, int64_t hi, sap_rec *rec)
{
	transe *m = env;
	const int32_t *t = (const int32_t *)m->T.data;
	for (int64_t k = lo; k < hi; k++) {
		int64_t i = idx ? idx[k] : k;
		sap_rec_begin(rec, i);
		sap_rec_key(rec, 1, t[4 * i], SAP_RW);
		sap_rec_key(rec, 2, t[4 * i + 1], SAP_RW);
		sap_rec_key(rec, 1, t[4 * i + 2], SAP_RW);
		sap_rec_key(rec, 1, t[4 * i + 3], SAP_RW);
	}
}

void transe_body(void *env, const int64_t *idx, int64_t lo, int64_t hi, void *red)
{
	(void)red;
	transe *m = env;
	const int32_t *t = (const int32_t *)m->T.data;
	float *e = (float *)m->E.data, *r = (float *)m->R.data;
	for (int64_t k = lo; k < hi; k++) {
		const int32_t *x = t + 4 * (idx ? idx[k] : k);
		float d = e[x[0]] + r[x[1]] - e[x[2]];
		float dc = e[x[0]] + r[x[1]] - e[x[3]];
		float g = 0.01f * (d - 0.5f * dc);
		e[x[0]] -= g;
		r[x[1]] -= g;
		e[x[2]] += g;
		e[x[3]] -= 0.5f * g;
	}
}

void transe_make(transe *m, int64_t n, int64_t ne, uint64_t seed)
{
	memset(m, 0, sizeof *m);
	dv_make(&m->T, "T", n, 4 * sizeof(int32_t));
	dv_make(&m->E, "E", ne, sizeof(float));
	dv_make(&m->R, "R", 18, sizeof(float));
	uint64_t s = seed;
	int32_t *t = (int32_t *)m->T.data;
	for (int64_t i = 0; i < n; i++) {
		t[4 * i] = (int32_t)synth_below(&s, ne);
		t[4 * i + 1] = (int32_t)synth_below(&s, 18);
		t[4 * i + 2] = (int32_t)synth_below(&s, ne);
		t[4 * i + 3] = (int32_t)synth_below(&s, ne);
	}
	float *e = (float *)m->E.data;
	for (int64_t k = 0; k < ne; k++)
		e[k] = (float)synth_below(&s, 100) * 0.01f;
	m->dds[0] = (sap_dds){ .name = "T", .dv = &m->T, .mode = SAP_READ, .slice_reads = true };
	m->dds[1] = (sap_dds){ .name = "E", .dv = &m->E, .mode = SAP_RW };
	m->dds[2] = (sap_dds){ .name = "R", .dv = &m->R, .mode = SAP_RW };
	m->spec = (sap_async_spec){ .dds = m->dds, .ndds = 3, .slice = transe_slice };
}

void transe_free(transe *m)
{
	sap_dv_free(&m->T);
	sap_dv_free(&m->E);
	sap_dv_free(&m->R);
}

/* ---- random patterns ---- */

static void pattern_slice(void *env, const int64_t *idx, int64_t lo, int64_t hi, sap_rec *rec)
{
	pattern *m = env;
	for (int64_t k = lo; k < hi; k++) {
		int64_t i = idx ? idx[k] : k;
		sap_rec_begin(rec, i);
		for (int q = 0; q < m->nk[i]; q++)
			sap_rec_key(rec, m->dds[4 * i + q], m->key[4 * i + q],
			            (sap_mode)m->mode[4 * i + q]);
	}
}

void pattern_make(pattern *m, int64_t n, int64_t nkeys, uint64_t seed)
{
	memset(m, 0, sizeof *m);
	m->n = n;
	m->nk = sap_xmalloc((size_t)n * sizeof *m->nk);
	m->dds = sap_xmalloc((size_t)n * 4 * sizeof *m->dds);
	m->mode = sap_xmalloc((size_t)n * 4 * sizeof *m->mode);
	m->key = sap_xmalloc((size_t)n * 4 * sizeof *m->key);
	uint64_t s = seed;
	for (int64_t i = 0; i < n; i++) {
		m->nk[i] = 1 + (int32_t)synth_below(&s, 4);
		for (int k = 0; k < m->nk[i]; k++) {
			m->dds[4 * i + k] = (int32_t)synth_below(&s, 3);
			m->mode[4 * i + k] = 1 + (int32_t)synth_below(&s, 3);
			m->key[4 * i + k] = synth_below(&s, nkeys);
		}
	}
	static const char *const names[3] = { "X0", "X1", "X2" };
	for (int d = 0; d < 3; d++) {
		dv_make(&m->X[d], names[d], nkeys, sizeof(float));
		m->dds3[d] = (sap_dds){ .name = names[d], .dv = &m->X[d], .mode = SAP_RW };
	}
	m->spec = (sap_async_spec){ .dds = m->dds3, .ndds = 3, .slice = pattern_slice };
}

void pattern_free(pattern *m)
{
	free(m->nk);
	free(m->dds);
	free(m->mode);
	free(m->key);
	for (int d = 0; d < 3; d++)
		sap_dv_free(&m->X[d]);
}

/* ---- banded ---- */

static void band_slice(void *env, const int64_t *idx, int64_t lo, int64_t hi, sap_rec *rec)
{
	band *m = env;
	for (int64_t k = lo; k < hi; k++) {
		int64_t i = idx ? idx[k] : k;
		sap_rec_begin(rec, i);
		for (int q = 0; q < 10; q++)
			sap_rec_key(rec, 0, m->key[10 * i + q], SAP_RW);
	}
}

void band_make(band *m, int64_t n, int64_t rows, int64_t w, uint64_t seed)
{
	memset(m, 0, sizeof *m);
	m->n = n;
	m->key = sap_xmalloc((size_t)(10 * n) * sizeof *m->key);
	uint64_t s = seed;
	for (int64_t j = 0; j < n; j++) {
		int64_t c = j * rows / n;
		for (int q = 0; q < 10; q++) {
			int64_t r = c - w + synth_below(&s, 2 * w + 1);
			m->key[10 * j + q] = r < 0 ? 0 : r >= rows ? rows - 1 : r;
		}
	}
	dv_make(&m->X, "X", rows, sizeof(double));
	m->d[0] = (sap_dds){ .name = "X", .dv = &m->X, .mode = SAP_RW };
	m->spec = (sap_async_spec){ .dds = m->d, .ndds = 1, .slice = band_slice };
}

void band_free(band *m)
{
	free(m->key);
	sap_dv_free(&m->X);
}

/* ---- planning a spec as the engine does ---- */

void plan_spec(planned *pl, const sap_async_spec *spec, void *env, int64_t n, int T,
               bool locks)
{
	memset(pl, 0, sizeof *pl);
	sap_layout_make(&pl->ly, spec, T, 0);
	sap_layout_weigh(&pl->ly, spec, env, 0, n, T, false);
	pl->ids = sap_xmalloc((size_t)n * sizeof *pl->ids);
	pl->order = sap_xmalloc((size_t)n * sizeof *pl->order);
	double slicing;
	sap_plan_recon(&pl->plan, spec, &pl->ly, env, 0, n, T, T, locks, pl->ids, pl->order,
	               &slicing, NULL);
	int64_t *all = sap_xmalloc((size_t)n * sizeof *all);
	for (int64_t i = 0; i < n; i++)
		all[i] = i;
	sap_recon_log(spec, &pl->ly, env, all, n, &pl->log, T);
	free(all);
}

void planned_free(planned *pl)
{
	sap_layout_free(&pl->ly);
	free(pl->ids);
	free(pl->order);
	sap_plan_free(&pl->plan);
	sap_keylog_free(&pl->log);
}
