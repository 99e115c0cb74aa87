## Golden compile-error tests: tests/compile/X.sap with its expected X.err.
compile_tests = \
	tests/compile/undefined-name.sap
TESTS += $(compile_tests)
EXTRA_DIST += $(compile_tests) $(compile_tests:.sap=.err)
