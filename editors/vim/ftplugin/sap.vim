" Vim filetype plugin file
" Language:	SAP (programs compiled by sapc)

if exists("b:did_ftplugin")
  finish
endif
let b:did_ftplugin = 1

let s:cpo_save = &cpo
set cpo&vim

setlocal commentstring=//\ %s
" /// doc comments first, so that gq and o continue them as doc comments.
setlocal comments=s1:/*,mb:*,ex:*/,:///,://
setlocal formatoptions-=t formatoptions+=croql
setlocal suffixesadd=.sap

" :make checks the current file with sapc -fsyntax-only; errors go to the
" quickfix list.
compiler sap

let b:undo_ftplugin = "setlocal commentstring< comments< formatoptions< suffixesadd<"
      \ . " makeprg< errorformat<"
      \ . " | unlet! b:current_compiler"

let &cpo = s:cpo_save
unlet s:cpo_save
