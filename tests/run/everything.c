#include <math.h>
int c_twice(int x) { return 2 * x; }
double c_norm(double *v) { double s = 0; for (int i = 0; i < 4; i++) s += v[i] * v[i]; return sqrt(s); }
