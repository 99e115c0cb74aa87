" Vim indent file
" Language:	SAP (programs compiled by sapc)
" SAP's statements and braces are C's, so C indenting fits.

if exists("b:did_indent")
  finish
endif
let b:did_indent = 1

setlocal cindent
" SAP has no preprocessor: a '#' line is not pushed to column 0.
setlocal cinkeys-=0#

let b:undo_indent = "setlocal cindent< cinkeys<"
