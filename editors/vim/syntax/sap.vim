" Vim syntax file
" Language:	SAP (programs compiled by sapc)
" Filenames:	*.sap
" Reference:	sap(7)

if exists("b:current_syntax")
  finish
endif

let s:cpo_save = &cpo
set cpo&vim

" Statements and declarations.
syn keyword sapConditional	if else
syn keyword sapRepeat		while do for
syn keyword sapStatement	break continue return
syn keyword sapParallel		async sync reduce accumulate relaxed
syn keyword sapStorageClass	const param extern
syn keyword sapStructure	struct nextgroup=sapStructName skipwhite
syn match   sapStructName	"\h\w*" contained

" Types.
syn keyword sapType		bool int long float double string void
syn keyword sapType		list dvector dmap dmultimap
syn keyword sapBoolean		true false

" Built-in functions (sap(7), BUILTINS) and the extern C functions the
" standard prelude declares.
syn keyword sapBuiltin		len push insert count erase get keys join
" (contains is an argument of :syn keyword, so it is matched instead.)
syn match   sapBuiltin		"\<contains\>"
syn keyword sapBuiltin		min max abs dot print printf load save
syn keyword sapBuiltin		rand rand_int rand_normal uniform normal
syn keyword sapBuiltin		tokens vocab unigram fast_sigmoid softmax
syn keyword sapBuiltin		split fields to_int to_long to_float to_double
syn keyword sapBuiltin		gemv ger gemm wtime ranks threads
syn keyword sapPrelude		sqrt cbrt exp exp2 expm1 log log2 log10 log1p pow hypot
syn keyword sapPrelude		sin cos tan asin acos atan atan2 sinh cosh tanh erf erfc
syn keyword sapPrelude		lgamma tgamma floor ceil round trunc fabs fmod fmin fmax copysign
syn keyword sapPrelude		sqrtf expf logf log1pf powf tanhf fabsf floorf ceilf roundf
syn keyword sapPrelude		isnan isinf M_PI M_E sigmoid keep_prob
syn keyword sapPrelude		INFINITY HUGE_VAL NAN DBL_MAX DBL_MIN DBL_EPSILON FLT_MAX FLT_MIN
syn keyword sapPrelude		FLT_EPSILON INT_MAX INT_MIN LONG_MAX LONG_MIN

" The with clause of a sync for: models and options are plain names there.
" (with is matched, not a keyword, so that the region below can start on it.)
syn match   sapParallel		"\<with\>"
syn region  sapWith		matchgroup=sapParallel start="\<with\>\s*(" end=")"
      \ contains=sapWithWord,sapWithParen,sapBuiltin,sapNumber,sapFloat,sapComment,sapLineComment
syn region  sapWithParen	start="(" end=")" contained transparent
      \ contains=sapWithParen,sapBuiltin,sapNumber,sapFloat
syn keyword sapWithWord		bsp ssp hybrid batch recon on off contained

" Numbers: 42, 42L, 0x2A, 1.5, .5, 1e-3, 1.5f.
syn match   sapNumber		"\<\d\+[lL]\=\>"
syn match   sapNumber		"\<0[xX]\x\+[lL]\=\>"
syn match   sapFloat		"\<\d\+\.\d*\%([eE][-+]\=\d\+\)\=[fF]\="
syn match   sapFloat		"\.\d\+\%([eE][-+]\=\d\+\)\=[fF]\=\>"
syn match   sapFloat		"\<\d\+[eE][-+]\=\d\+[fF]\=\>"

" Strings, their escapes and print's conversions.
syn match   sapEscapeError	"\\." contained
syn match   sapEscape		"\\[ntr0\\\"']" contained
syn match   sapFormat		"%%" contained
syn match   sapFormat		"%[-+ #0]*\d*\%(\.\d*\)\=[diuxXocfeEgGs]" contained
syn region  sapString		start=+"+ skip=+\\\\\|\\"+ end=+"+ end=+$+ oneline
      \ contains=sapEscapeError,sapEscape,sapFormat

" Comments: /// documents the param that follows it (shown by --help).
syn keyword sapTodo		TODO FIXME XXX NOTE contained
syn region  sapDocComment	start="///" end="$" keepend contains=sapTodo,@Spell
syn region  sapLineComment	start="//\%(/\)\@!" end="$" keepend contains=sapTodo,@Spell
syn region  sapComment		start="/\*" end="\*/" contains=sapTodo,@Spell fold
syn match   sapCommentError	"\*/"

syn sync ccomment sapComment minlines=50

hi def link sapConditional	Conditional
hi def link sapRepeat		Repeat
hi def link sapStatement	Statement
hi def link sapParallel		Statement
hi def link sapStorageClass	StorageClass
hi def link sapStructure	Structure
hi def link sapStructName	Typedef
hi def link sapType		Type
hi def link sapBoolean		Boolean
hi def link sapBuiltin		Function
hi def link sapPrelude		Function
hi def link sapWithWord		Keyword
hi def link sapNumber		Number
hi def link sapFloat		Float
hi def link sapString		String
hi def link sapEscape		SpecialChar
hi def link sapEscapeError	Error
hi def link sapFormat		SpecialChar
hi def link sapTodo		Todo
hi def link sapDocComment	SpecialComment
hi def link sapLineComment	Comment
hi def link sapComment		Comment
hi def link sapCommentError	Error

let b:current_syntax = "sap"

let &cpo = s:cpo_save
unlet s:cpo_save
