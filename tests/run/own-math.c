/* a library of one's own: different results from libm's */
double sqrt(double x) { return x; }
double fabs(double x) { return x * 0 + 7; }
double floor(double x) { return x * 0 - 1; }
double round(double x) { return x * 0 + 5; }
