" Ask through an instruction comment, show the proposal, apply it and save
" every buffer it changed.
execute 'source ' . expand('<sfile>:p:h') . '/lib.vim'

call Open($WORKSPACE . '/hello.py')
" An unsaved edit the agent must see.
call append(0, '# greetings, unsaved')
call cursor(3, 5)
call Pick('^Ask agent…')
" The action inserted '    # AGENT: ' above the cursor; the user types the
" request after it and asks for the code actions on that line.
if getline(3) !~# '^    # AGENT: $'
    call Fail('no instruction comment: ' . string(getline(1, '$')))
endif
call cursor(3, 1)
normal! Achange the greeting
call Pick('^Agent: change the greeting')
call Until('the answer', {-> Seen('Changed the greeting')})
call writefile(getline(1, '$'), $OUT . '/before')
call Pick('^Show agent proposal (proposal-1)$')
call Until('the diff', {-> Seen('proposal-1.*\.diff')})

call Pick('^Apply agent proposal (\d file(s), proposal-1; 1 new file(s) in buffers, not created until you write them)$')
call writefile(getline(1, '$'), $OUT . '/applied')
" The new file's buffer is written where its directory is made.
call mkdir($WORKSPACE . '/new', 'p')
wall
call Until('the proposal to be applied', {-> Seen('proposal-1 is applied')})
call Done()
