/* No header: these names are the program's here. */
int u_Rating(int x) { return x + 1; }
int int64_t(int x) { return 2 * x; }
