## End-to-end tests: compile a .sap program, run it under mpiexec, compare
## its output (tests/run/X.sap, X.out, X.args, X.NAME.expect), and
## scripts that compare whole programs.
run_tests = \
	tests/run/sgdmf-twin.sh
TESTS += $(run_tests)
EXTRA_DIST += $(run_tests)
