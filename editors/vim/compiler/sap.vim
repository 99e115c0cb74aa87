" Vim compiler file
" Compiler:	sapc, the SAP compiler
" Diagnostics are GNU style: "file:line:col: error: message", then the
" source line and a caret (both indented), then any "note:" lines.

if exists("current_compiler")
  finish
endif
let current_compiler = "sap"

if exists(":CompilerSet") != 2
  command -nargs=* CompilerSet setlocal <args>
endif

let s:cpo_save = &cpo
set cpo&vim

CompilerSet makeprg=sapc\ -fsyntax-only\ %
" Errors and notes with a position; "file:line: error:" as a compiled
" program reports a bad input line; sapc's own errors (a file it cannot
" read, a bad option).  The quoted source line and the caret under it are
" left out.
CompilerSet errorformat=
      \%f:%l:%c:\ %trror:\ %m,
      \%f:%l:%c:\ %tote:\ %m,
      \%f:%l:\ %trror:\ %m,
      \sapc:\ %trror:\ %m,
      \%-G\ %.%#

let &cpo = s:cpo_save
unlet s:cpo_save
