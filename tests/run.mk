## End-to-end tests: compile a .sap program, run it under mpiexec, compare
## its output (tests/run/X.sap with X.out, and optionally X.args, X.flags,
## X.status, X.err, X.c, X.NAME.in inputs and X.NAME.expect outputs), and scripts
## that compare whole programs.
## The longest run first, so that make -j does not end on one of them.
run_slow_tests = \
	tests/run/reduce-grid.sh \
	tests/run/bad-input.sh \
	tests/run/text-errors.sh \
	tests/run/slice-twins.sh \
	tests/run/slice-list.sh \
	tests/run/triangles.sh \
	tests/run/lasso-sample.sh \
	tests/run/hot-keys.sh \
	tests/run/short-loops.sh \
	tests/run/ckpt-resume.sh \
	tests/run/colouring.sh \
	tests/run/async-order.sh \
	tests/run/sparse-ranks.sh \
	tests/run/relaxed-ranks.sh \
	tests/run/ckpt-live.sh \
	tests/run/save-temp.sh \
	tests/run/ssp-cycle.sh \
	tests/run/slice-errors.sh \
	tests/run/ckpt-damage.sh \
	tests/run/ckpt-faults.sh \
	tests/run/folded-keys.sh \
	tests/run/sync-local-layouts.sh \
	tests/run/stdin-ranks.sh \
	tests/run/sapc-options.sh \
	tests/run/key-plan.sh \
	tests/run/parts-ranks.sh \
	tests/run/sums.sh \
	tests/run/sync-ranks.sh \
	tests/run/ckpt-empty.sh \
	tests/run/ckpt-shared-dir.sh \
	tests/run/ways-ranks.sh \
	tests/run/guarded-keys.sh \
	tests/run/keys-kept-tie.sh \
	tests/run/audit-chunks.sh \
	tests/run/chain-pieces.sh
run_tests = \
	tests/run/moving-keys.sap \
	tests/run/index-range-c.sh \
	tests/run/read-slice-drv.sh \
	tests/run/read-slice-stop.sh \
	tests/run/chunks-by-work.sh \
	tests/run/cost-ranks.sh \
	tests/run/scattered-holders.sh \
	tests/run/folded-reads.sh \
	tests/run/whole-regather.sh \
	tests/run/else-branch.sh \
	tests/run/reduce-partial-range.sh \
	tests/run/owner-fragmented.sh \
	tests/run/contains-guard.sh \
	tests/run/plan-own-writes.sh \
	tests/run/plan-same-bytes.sh \
	tests/run/sum-range.sh \
	tests/run/sync-bad-batch.sh \
	tests/run/relaxed-sparse.sh \
	tests/run/wavefront.sh \
	tests/run/shared-plan-reads.sh \
	tests/run/csv-first-line.sh \
	tests/run/ckpt-saved-input.sh \
	tests/run/slice-unused-local.sap \
	tests/run/field-keys.sap \
	tests/run/body-decl-scope.sap \
	tests/run/extern-names.sap \
	tests/run/array-params.sap \
	tests/run/float-consts.sap \
	tests/run/small-loop-ranks.sap \
	tests/run/lazy-arrays.sap \
	tests/run/return-moves.sap \
	tests/run/store-moves.sap \
	tests/run/lazy-werror.sap \
	tests/run/borrow-element.sap \
	tests/run/mm-hoist.sap \
	tests/run/reduce-tested-conv.sap \
	tests/run/load-hash-lines.sap \
	tests/run/load-blank-list.sap \
	tests/run/list-oob-name.sap \
	tests/run/count-bound.sap \
	tests/run/keys-ties.sap \
	tests/run/acc-map-owner.sap \
	tests/run/keys-memory.sap \
	tests/run/csv-field-header.sap \
	tests/run/mmap-index.sap \
	tests/run/acc-sparse.sh \
	tests/run/field-own-read.sap \
	tests/run/reduce-kept.sap \
	tests/run/reduce-call-test.sap \
	tests/run/extern-macros.sap \
	tests/run/c-judgements.sap \
	tests/run/c-declarators.sap \
	tests/run/threads-binding.sh \
	tests/run/sync-writes-over.sap \
	tests/run/map-store-keys.sh \
	tests/run/string-key-order.sap \
	tests/run/map-memo.sap \
	tests/run/len-bound.sap \
	tests/run/push-convert.sap \
	tests/run/slice-volatile.sap \
	tests/run/cond-numbers.sap \
	tests/run/array-args.sap \
	tests/run/int-range-compare.sap \
	tests/run/mmap-view.sap \
	tests/run/mmap-groups.sap \
	tests/run/edge-keys.sap \
	tests/run/recorded-range.sap \
	tests/run/sync-inf.sap \
	tests/run/pagerank-ids.sap \
	tests/run/acc-map-dense.sap \
	tests/run/interleaved-keys.sap \
	tests/run/load-array-field.sap \
	tests/run/save-nan-field.sap \
	tests/run/string-conv.sap \
	tests/run/settle-again.sap \
	tests/run/extern-key-array.sap \
	tests/run/chained-assign-key.sap \
	tests/run/ternary-guard.sap \
	tests/run/shadowed-keys.sap \
	tests/run/affine-wrap.sap \
	tests/run/conv-nan.sap \
	tests/run/minmax-order.sap \
	tests/run/map-null-key.sap \
	tests/run/shared-plan-ranks.sap \
	tests/run/params-defaults.sap \
	tests/run/array-drop-init.sap \
	tests/run/lazy-temps.sap \
	tests/run/map-int-keys.sap \
	tests/run/local-keys.sap \
	tests/run/reload-parts.sap \
	tests/run/span-reads.sap \
	tests/run/nested-spans.sap \
	tests/run/span-chunks.sh \
	tests/run/hub-rows.sap \
	tests/run/pivot-row.sap \
	tests/run/reduce-signed-zero.sap \
	tests/run/reduce-kept-converted.sap \
	tests/run/field-call.sap \
	tests/run/key-helpers.sap \
	tests/run/span-float-end.sap \
	tests/run/inner-never.sap \
	tests/run/reduce-converted-zero.sap \
	tests/run/pivot-helper.sap \
	tests/run/keys-other-map-ranks.sap \
	tests/run/sync-batch-huge.sap \
	tests/run/decoded-index.sap \
	tests/run/hub-chunks.sh \
	tests/run/int-products.sap \
	tests/run/guard-traps.sap \
	tests/run/own-math.sap \
	tests/run/exact-math.sap \
	tests/run/len-keys.sap \
	tests/run/parted-map-reads.sap \
	tests/run/ranged-keys.sap \
	tests/run/header-write-stamp.sap \
	tests/run/narrow-call.sap \
	tests/run/extern-arrays.sap \
	tests/run/extern-writes-dds.sap \
	tests/run/steady-buffers.sh \
	tests/run/continue-before.sap \
	tests/run/rand-keys-inner.sap \
	tests/run/lazy-operand-keys.sap \
	tests/run/int-wrap-keys.sap \
	tests/run/rand-site-key.sh \
	tests/run/stats-recons.sh \
	tests/run/driver-push-stamp.sap \
	tests/run/map-key-long.sap \
	tests/run/driver-write-stamp.sap \
	tests/run/bounds-shrink.sap \
	tests/run/counter-outside.sap \
	tests/run/index-whole-stale.sap \
	tests/run/accumulate.sap \
	tests/run/accumulate-large.sap \
	tests/run/accumulate-held.sap \
	tests/run/acc-negzero.sap \
	tests/run/dmm-view-copy.sap \
	tests/run/const-conv.sap \
	tests/run/driver-loops.sap \
	tests/run/array-fill.sap \
	tests/run/array-fill-c.sh \
	tests/run/args-ranks.sh \
	tests/run/wtime-ranks.sh \
	tests/run/slice-vars.sh \
	tests/run/dump-order-error.sh \
	tests/run/if-assign-key.sh \
	tests/run/output-is-input.sh \
	tests/run/codec-ranks.sh \
	tests/run/cond-keys.sap \
	tests/run/keyless-iters.sap \
	tests/run/big-arrays.sap \
	tests/run/shifts.sap \
	tests/run/print-ints.sap \
	tests/run/trigraphs.sap \
	tests/run/shift-count.sap \
	tests/run/array-div.sap \
	tests/run/conv-range.sap \
	tests/run/conv-2p63.sap \
	tests/run/async-le.sap \
	tests/run/async-le-max.sap \
	tests/run/dead-branch.sap \
	tests/run/memo-other-keys.sap \
	tests/run/window-parts.sap \
	tests/run/shared-whole.sap \
	tests/run/save-parts-stream.sh \
	tests/run/conv-long.sap \
	tests/run/return-in-endless-loop.sap \
	tests/run/type-names.sap \
	tests/run/const-strings.sap \
	tests/run/func-var-names.sap \
	tests/run/const-limits.sap \
	tests/run/const-folded.sap \
	tests/run/param-declarator.sap \
	tests/run/conv-implicit.sap \
	tests/run/rand-keys.sap \
	tests/run/map-string-values.sap \
	tests/run/sync-over-element.sh \
	tests/run/sync-reduce-key.sap \
	tests/run/hybrid-one-rank.sh \
	tests/run/stencil-ranks.sh \
	tests/run/owner-writes.sh \
	tests/run/owner-reads.sh \
	tests/run/owner-balance.sh \
	tests/run/spans.sh \
	tests/run/refetch-whole.sh \
	tests/run/serial-plan.sh \
	tests/run/span-traffic.sh \
	tests/run/sync-slice-warn.sh \
	tests/run/ckpt-shared-plan.sh \
	tests/run/one-process.sh \
	tests/run/sync-replay.sh \
	tests/run/order-head.sh \
	tests/run/heavy-small.sh \
	tests/run/sync-merge-solo.sh \
	tests/run/async-int-range.sap \
	tests/run/stack-overflow.sap \
	tests/run/merge-fn-rows.sap \
	tests/run/slice-locals.sap \
	tests/run/error-stops.sh \
	tests/run/folded-keys-c.sh \
	tests/run/audit-maps.sh \
	tests/run/ranged-const-c.sh \
	tests/run/blas-threads.sh \
	tests/run/ckpt-kill.sh \
	tests/run/cond-access.sap \
	tests/run/elem-types.sap \
	tests/run/empty.sap \
	tests/run/everything.sap \
	tests/run/gdb-line.sh \
	tests/run/holders-ranks.sh \
	tests/run/strips.sh \
	tests/run/idx2txt.sh \
	tests/run/index-error.sap \
	tests/run/int-wrap.sap \
	tests/run/lanes.sap \
	tests/run/lanes-order.sh \
	tests/run/list-range.sap \
	tests/run/list-range-c.sh \
	tests/run/push-self.sap \
	tests/run/load-error.sap \
	tests/run/load-lists.sap \
	tests/run/pack-lists.sap \
	tests/run/libsvm.sh \
	tests/run/load-colon-words.sh \
	tests/run/genlasso.sh \
	tests/run/pagerank-sample.sh \
	tests/run/kmeans-sample.sh \
	tests/run/layout-ranks.sh \
	tests/run/load-ranks.sh \
	tests/run/load-blocks.sh \
	tests/run/load-truncated.sh \
	tests/run/map-keys.sap \
	tests/run/map-keys-grow.sap \
	tests/run/map-keys-again.sh \
	tests/run/chunk-layouts.sh \
	tests/run/dmap-self.sap \
	tests/run/maps-ranks.sh \
	tests/run/acc-map-layouts.sh \
	tests/run/csv-header-doubt.sh \
	tests/run/mlr-sample.sh \
	tests/run/memory-ranks.sh \
	tests/run/install-moved.sh \
	tests/run/options-doc.sh \
	tests/run/params-bad.sap \
	tests/run/params-typo.sap \
	tests/run/params-swap.sap \
	tests/run/params-version.sap \
	tests/run/params-set.sap \
	tests/run/params.sap \
	tests/run/rng-calls.sap \
	tests/run/relaxed.sap \
	tests/run/save-full.sh \
	tests/run/save-stream.sh \
	tests/run/chunk-traffic.sh \
	tests/run/sgdmf-twin.sh \
	tests/run/sgdmf-adaptive.sh \
	tests/run/slice-bounds.sap \
	tests/run/ssp-ranks.sh \
	tests/run/map-keyset-plan.sh \
	tests/run/staged.sap \
	tests/run/stdlib.sap \
	tests/run/prelude-own.sap \
	tests/run/c-cast.sap \
	tests/run/struct-keyword.sap \
	tests/run/csv-load.sap \
	tests/run/reads-holders.sap \
	tests/run/csv-errors.sap \
	tests/run/c-prototypes.sap \
	tests/run/print-modifiers.sap \
	tests/run/print-hex.sap \
	tests/run/blas.sap \
	tests/run/gemm.sap \
	tests/run/strings-ranks.sap \
	tests/run/sync-delta.sh \
	tests/run/spare-plan.sh \
	tests/run/text-roundtrip.sh \
	tests/run/w2v-sample.sh \
	tests/run/w2v-tools.sh
TESTS += $(run_tests)
EXTRA_DIST += $(run_slow_tests) $(run_tests) \
	tests/run/sync-writes-over.out tests/run/sync-writes-over.rows.txt.in tests/run/prelude-own.out tests/run/c-cast.out tests/run/print-modifiers.out tests/run/print-hex.out tests/run/struct-keyword.out tests/run/c-prototypes.out \
	tests/run/keys-ties.out tests/run/acc-map-owner.out tests/run/keys-memory.out tests/run/keys-memory.c tests/run/csv-field-header.out tests/run/csv-field-header.edges.csv.in tests/run/csv-field-header.plain.csv.in \
	tests/run/csv-field-header.other.csv.in tests/run/csv-field-header.docs.tsv.in tests/run/mmap-index.out tests/run/reads-holders.out tests/run/csv-load.out tests/run/csv-load.points.csv.in tests/run/csv-load.lists.csv.in tests/run/csv-load.words.csv.in tests/run/csv-load.names.csv.in \
	tests/run/csv-load.out.csv.expect tests/run/csv-errors.points.csv.in tests/run/csv-errors.status \
	tests/run/csv-errors.err tests/run/csv-errors.out \
	tests/run/sync-writes-over.vals.txt.in \
	tests/run/edge-keys.out tests/run/edge-keys.err tests/run/edge-keys.status \
	tests/run/recorded-range.out tests/run/recorded-range.err tests/run/recorded-range.status \
	tests/run/pagerank-ids.out tests/run/sync-inf.out tests/run/moving-keys.out \
	tests/run/mmap-groups.out tests/run/string-key-order.out tests/run/map-memo.out tests/run/len-bound.out tests/run/len-bound.args tests/run/mmap-view.out tests/run/push-convert.out tests/run/slice-volatile.out tests/run/cond-numbers.out tests/run/array-args.out tests/run/array-args.c tests/run/int-range-compare.out \
	tests/run/params-defaults.out tests/run/params-defaults.args tests/run/string-conv.out \
	tests/run/conv-implicit.flags tests/run/const-limits.flags tests/run/param-declarator.flags tests/run/ternary-guard.flags tests/run/bounds-shrink.flags tests/run/relaxed.flags \
	tests/run/body-decl-scope.flags tests/run/body-decl-scope.out tests/run/field-keys.out \
	tests/run/extern-names.c tests/run/extern-names.out \
	tests/run/own-math.c tests/run/own-math.out tests/run/guard-traps.out tests/run/int-products.out \
	tests/run/exact-math.out tests/run/nested-spans.out tests/run/hub-rows.out tests/run/pivot-row.out tests/run/reduce-signed-zero.out tests/run/reduce-kept-converted.out tests/run/field-call.out tests/run/key-helpers.out tests/run/span-float-end.out tests/run/inner-never.out tests/run/reduce-converted-zero.out tests/run/pivot-helper.out tests/run/keys-other-map-ranks.out tests/run/sync-batch-huge.out tests/run/decoded-index.out \
	tests/run/array-params.out tests/run/array-params.flags \
	tests/run/save-nan-field.status tests/run/save-nan-field.err tests/run/save-nan-field.out \
	tests/run/load-array-field.status tests/run/load-array-field.err tests/run/load-array-field.out \
	tests/run/load-array-field.rows.txt.in \
	tests/run/conv-nan.out tests/run/conv-nan.err tests/run/conv-nan.status \
	tests/run/minmax-order.out tests/run/reduce-call-test.out tests/run/extern-macros.out tests/run/c-judgements.out tests/run/map-null-key.out tests/run/shared-plan-ranks.out tests/run/lazy-temps.out tests/run/array-drop-init.out tests/run/local-keys.out tests/run/map-int-keys.out \
	tests/run/acc-map-dense.out tests/run/accumulate.out tests/run/accumulate-large.out tests/run/accumulate-large.args \
	tests/run/accumulate-held.out tests/run/accumulate-held.args \
	tests/run/acc-negzero.out \
	tests/run/load-blank-list.out tests/run/load-blank-list.err tests/run/load-blank-list.cols.txt.in \
	tests/run/dmm-view-copy.out \
	tests/run/const-conv.out \
	tests/run/driver-loops.out \
	tests/run/array-fill.out tests/run/list-range.out tests/run/push-self.out tests/run/int-wrap.out tests/run/rng-calls.out tests/run/map-keys.out tests/run/map-keys-grow.out tests/run/dmap-self.out tests/run/strings-ranks.out \
	tests/run/cond-keys.out tests/run/cond-keys.args tests/run/keyless-iters.out tests/run/keyless-iters.args \
	tests/run/big-arrays.out tests/run/big-arrays.args tests/run/shifts.out tests/run/print-ints.out tests/run/trigraphs.out \
	tests/run/shift-count.out tests/run/shift-count.status tests/run/shift-count.err \
	tests/run/array-div.out tests/run/array-div.status tests/run/array-div.err \
	tests/run/conv-range.out tests/run/conv-range.status tests/run/conv-range.err tests/run/conv-2p63.out tests/run/async-le.out tests/run/async-le-max.out tests/run/async-le-max.err tests/run/async-le-max.status tests/run/dead-branch.out tests/run/memo-other-keys.out tests/run/window-parts.out tests/run/shared-whole.out tests/run/window-parts.seq.txt.in tests/run/conv-2p63.status tests/run/conv-2p63.err \
	tests/run/conv-implicit.out tests/run/conv-implicit.status tests/run/conv-implicit.err \
	tests/run/conv-long.out tests/run/conv-long.status tests/run/conv-long.err \
	tests/run/index-whole-stale.out tests/run/counter-outside.out tests/run/bounds-shrink.out \
	tests/run/driver-write-stamp.out tests/run/len-keys.out tests/run/reload-parts.out tests/run/span-reads.out \
	tests/run/const-folded.out tests/run/param-declarator.out tests/run/const-limits.out tests/run/const-strings.out \
	tests/run/affine-wrap.out tests/run/affine-wrap.err tests/run/affine-wrap.status \
	tests/run/func-var-names.out tests/run/return-in-endless-loop.out tests/run/shadowed-keys.out \
	tests/run/ternary-guard.out tests/run/type-names.out \
	tests/run/parted-map-reads.out tests/run/driver-push-stamp.out \
	tests/run/extern-arrays.out tests/run/extern-arrays.c tests/run/extern-writes-dds.out tests/run/extern-writes-dds.c tests/run/narrow-call.out \
	tests/run/extern-key-array.out tests/run/extern-key-array.c tests/run/chained-assign-key.out \
	tests/run/settle-again.out tests/run/interleaved-keys.out tests/run/small-loop-ranks.out tests/run/lazy-arrays.out tests/run/return-moves.out tests/run/store-moves.out tests/run/lazy-werror.out tests/run/count-bound.out tests/run/borrow-element.out tests/run/mm-hoist.out tests/run/reduce-tested-conv.out tests/run/load-hash-lines.out tests/run/load-hash-lines.err tests/run/load-hash-lines.posts.txt.in tests/run/list-oob-name.out tests/run/list-oob-name.err tests/run/list-oob-name.status \
	tests/run/header-write-stamp.out tests/run/continue-before.out \
	tests/run/rand-keys-inner.out tests/run/lazy-operand-keys.out tests/run/int-wrap-keys.out \
	tests/run/ranged-keys.out tests/run/ranged-keys.status tests/run/ranged-keys.err \
	tests/run/map-key-long.out tests/run/map-key-long.status tests/run/map-key-long.err \
	tests/run/rand-keys.out tests/run/rand-keys.args \
	tests/run/map-string-values.out tests/run/map-string-values.args \
	tests/run/sync-reduce-key.out tests/run/sync-reduce-key.args \
	tests/run/async-int-range.out tests/run/async-int-range.status tests/run/async-int-range.err \
	tests/run/stack-overflow.out tests/run/stack-overflow.status tests/run/stack-overflow.err tests/run/slice-twins.awk \
	tests/run/slice-locals.out tests/run/slice-locals.args tests/run/merge-fn-rows.out \
	tests/run/slice-bounds.out tests/run/slice-bounds.args \
	tests/run/elem-types.out tests/run/reduce-grid.gen tests/run/cond-access.out \
	tests/run/everything.out tests/run/everything.c tests/run/empty.out tests/run/empty.args \
	tests/run/everything.points.txt.in tests/run/everything.corpus.txt.in \
	tests/run/everything.points.out.expect tests/run/everything.corpus.out.expect \
	tests/run/everything.u.out.expect \
	tests/run/index-error.out tests/run/index-error.err tests/run/index-error.status \
	tests/run/load-error.out tests/run/load-error.err tests/run/load-error.status \
	tests/run/load-error.ratings.txt.in \
	tests/run/load-lists.out tests/run/load-lists.cols.txt.in \
	tests/run/load-lists.ints.txt.in \
	tests/run/pack-lists.out tests/run/pack-lists.args \
	tests/run/params-bad.args tests/run/params-bad.err tests/run/params-bad.out \
	tests/run/params-bad.status \
	tests/run/params-typo.args tests/run/params-typo.err tests/run/params-typo.out \
	tests/run/params-typo.status tests/run/params-swap.args tests/run/params-swap.err tests/run/params-swap.out tests/run/params-swap.status tests/run/params-version.args tests/run/params-version.out \
	tests/run/params-set.args tests/run/params-set.out \
	tests/run/params.args tests/run/params.out \
	tests/run/staged.args tests/run/staged.out \
	tests/run/stdlib.out tests/run/stdlib.text.txt.in tests/run/blas.out tests/run/gemm.out tests/run/lsq.sap.in \
	tests/run/relaxed.out tests/run/relaxed-lda.sap.in \
	tests/run/lanes.out tests/run/lanes-check.c tests/run/ckpt-faults.c \
	tests/run/live-state.sap
