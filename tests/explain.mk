## Golden --explain tests: tests/explain/X.sap with the expected report X.out
## (and X.status when some loop is rejected).
explain_tests = \
	tests/explain/keys-hint-struct.sap \
	tests/explain/cancelled-terms.sap \
	tests/explain/keys-vector.sap \
	tests/explain/loop-carried.sap \
	tests/explain/loop-carried-more.sap \
	tests/explain/decoded-index.sap \
	tests/explain/pivot-row.sap \
	tests/explain/reduce-tested.sap \
	tests/explain/key-helpers.sap \
	tests/explain/nested-spans.sap \
	tests/explain/butterfly.sap \
	tests/explain/chunks-work.sap \
	tests/explain/lost-copy.sap \
	tests/explain/draw-order.sap \
	tests/explain/sync-reduce-list.sap \
	tests/explain/shadowed-locals.sap \
	tests/explain/guarded-constant.sap \
	tests/explain/local-keys.sap \
	tests/explain/static-key-var.sap \
	tests/explain/sums.sap \
	tests/explain/rekeyed.sap \
	tests/explain/field-keys.sap \
	tests/explain/additive-beside.sap \
	tests/explain/relaxed-hint-dmap.sap \
	tests/explain/wtime-guard.sap \
	tests/explain/affine.sap \
	tests/explain/conditional.sap \
	tests/explain/folded-keys.sap \
	tests/explain/hotkeys.sap \
	tests/explain/relaxed-self.sap \
	tests/explain/indirect.sap \
	tests/explain/inner.sap \
	tests/explain/maps.sap \
	tests/explain/random.sap \
	tests/explain/reads.sap \
	tests/explain/relaxed.sap \
	tests/explain/rejected.sap \
	tests/explain/serialized.sap \
	tests/explain/sync.sap \
	tests/explain/twin-loops.sap \
	tests/explain/unconditional.sap
TESTS += $(explain_tests)
EXTRA_DIST += $(explain_tests) $(explain_tests:.sap=.out) tests/explain/rejected.status \
	tests/explain/field-keys.status
