-- Headless end-to-end test, run by e2e_test.go on every Neovim it finds
-- (Debian 12's 0.7.2, Debian 13's 0.10 in a chroot, …) against the real
-- server and a scripted model. It does what a user does — commands, the
-- code-action menu (vim.ui.select answered by title), the prompt box — and
-- judges what the user sees: windows and buffers, messages, the buffers'
-- text, the bytes written to disk. Writes "ok" or the failure to $RESULT,
-- then quits. The next-edit step runs last, in the main loop: keys typed
-- there fire TextChanged, as a user's do (not so during this script).
local H = dofile(debug.getinfo(1, 'S').source:sub(2):match('(.*/)') .. 'harness.lua')
local root, finish = H.root, H.finish
-- Every message the user is shown through vim.notify, and every use of a
-- deprecated function by the plugin.
H.record(true)
local notes, deprecated = H.notes, H.deprecated

local function said(text, level)
  for _, n in ipairs(notes) do
    if n.msg:find(text, 1, true) and (level == nil or n.level == level) then
      return true
    end
  end
  return false
end

local function wait(ms, cond, what)
  assert(vim.wait(ms, cond, 20), what)
end

local function names_of_buffers()
  local names = {}
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    local name = vim.api.nvim_buf_get_name(b)
    if name ~= '' and vim.api.nvim_buf_is_loaded(b) then
      names[name:gsub('^' .. vim.pesc(root) .. '/', '')] = true
    end
  end
  return names
end

-- menu opens the code-action menu (with open, vim.lsp.buf.code_action by
-- default), picks the entry whose title starts with choose (none: nothing)
-- and returns every title it listed.
local function menu(choose, open)
  local titles, chosen
  local select = vim.ui.select
  vim.ui.select = function(items, opts, on_choice)
    vim.ui.select = select
    titles = {}
    for _, item in ipairs(items) do
      local title = opts.format_item(item)
      table.insert(titles, title)
      if choose and not chosen and title:sub(1, #choose) == choose then
        chosen = item
      end
    end
    on_choice(chosen)
  end
  ;(open or vim.lsp.buf.code_action)()
  wait(10000, function() return titles ~= nil end, 'the code-action menu did not open')
  assert(choose == nil or chosen, 'no "' .. tostring(choose) .. '" in the menu: ' .. vim.inspect(titles))
  return titles
end

local agent, server, sent

local ok, err = pcall(function()
  agent = require('agent_lsp')
  agent.setup({
    cmd = { os.getenv('AGENT_LSP_BIN') },
    -- Completion items: Neovim 0.7 has no inline completion. Next edits
    -- from the agent's (scripted) model server.
    settings = {
      completion = { items = true, fim = 'suffix', debounceMs = 1 },
      nes = { model = 'nes-chat', debounceMs = 10 },
    },
  })
  vim.cmd('edit ' .. root .. '/hello.py')
  local buf, win = vim.api.nvim_get_current_buf(), vim.api.nvim_get_current_win()
  wait(10000, function() return agent.running() and agent.running().attached_buffers[buf] end, 'the client did not attach')
  local client = agent.running()
  -- Every command the plugin sends, as JSON: an empty Lua table {} would go
  -- as [] (a list), which the server took for invalid arguments.
  sent = {}
  local request = client.request
  client.request = function(a, b, ...)
    local method, params = a, b
    if type(a) == 'table' then
      method, params = b, ...
    end
    if method == 'workspace/executeCommand' then
      table.insert(sent, vim.json.encode(params))
    end
    return request(a, b, ...)
  end
  function server(command, arg)
    local answers = vim.lsp.buf_request_sync(buf, 'workspace/executeCommand', { command = command, arguments = arg and { arg } or nil }, 10000)
    local answer = answers and answers[client.id]
    assert(answer and not answer.err, command .. ': ' .. vim.inspect(answer))
    return answer.result
  end
  -- An unsaved edit: the agent must see it.
  vim.api.nvim_buf_set_lines(buf, 0, 0, false, { '# 🐍 greetings, unsaved' })

  -- :AgentAsk: the answer and the diff open in splits, and nothing else
  -- (Neovim 0.10 declares showDocument: the server's own copy of the
  -- answer opened in a window of its own); nothing changes before :AgentApply.
  local windows = #vim.api.nvim_list_wins()
  vim.cmd('AgentAsk change the greeting')
  wait(20000, function() return agent.state.previewed ~= nil end, 'no proposal arrived')
  local id = agent.state.previewed
  local diffbuf = vim.fn.bufnr('agent-lsp://' .. id .. '.diff')
  assert(diffbuf ~= -1, 'no diff preview buffer')
  assert(vim.bo[diffbuf].filetype == 'diff', 'preview filetype is ' .. vim.bo[diffbuf].filetype)
  local diff = table.concat(vim.api.nvim_buf_get_lines(diffbuf, 0, -1, false), '\n')
  assert(diff:find('+    return "🐍 Hello, agent!"', 1, true), 'diff lacks the change:\n' .. diff)
  assert(vim.deep_equal(names_of_buffers(), { ['hello.py'] = true, ['agent-lsp://answer'] = true, ['agent-lsp://' .. id .. '.diff'] = true }),
    'buffers after the ask: ' .. vim.inspect(names_of_buffers()))
  assert(#vim.api.nvim_list_wins() == windows + 2, 'windows after the ask: ' .. #vim.api.nvim_list_wins() .. ', before ' .. windows)
  assert(vim.api.nvim_get_current_win() == win and vim.api.nvim_win_get_buf(win) == buf, 'the ask replaced the current window or its buffer')
  local before = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  assert(before[3] == '    return "🐍 Hello, World!"', 'changed before apply: ' .. vim.inspect(before))

  vim.cmd('AgentApply')
  wait(20000, function() return said(id .. ' applied') end, 'the proposal was not applied')
  local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  local want = { '# 🐍 greetings, unsaved', 'def greet():', '    return "🐍 Hello, agent!"' }
  assert(vim.deep_equal(lines, want), 'buffer is ' .. vim.inspect(lines))
  assert(vim.bo[buf].modified, 'the buffer should be modified, not saved')
  assert(vim.fn.bufnr('agent-lsp://' .. id .. '.diff') == -1, 'the applied proposal is still previewed')
  -- With nothing pending, :AgentPreview says so, and errs not.
  vim.cmd('AgentPreview')
  wait(10000, function() return said('no proposal is pending') end, ':AgentPreview with nothing pending said nothing')

  -- The menu's "Ask agent…" asks for the prompt in the plugin's box.
  vim.ui.input = function(_, on_confirm) on_confirm('explain the greeting') end
  menu('Ask agent…')
  wait(20000, function() return agent.state.last_answer == 'It greets.' end, 'the menu ask did not run: ' .. tostring(agent.state.last_answer))
  wait(5000, function() return not agent.state.running end, 'the menu ask is still running')

  -- :AgentCancel stops a run (the model never answers this one).
  vim.cmd('AgentAsk wait for cancel')
  wait(10000, function()
    for _, r in ipairs(server('agent.status').runs) do
      if r.state == 'running' then
        return true
      end
    end
    return false
  end, 'the run to cancel did not start')
  vim.cmd('AgentCancel')
  wait(10000, function() return not agent.state.running end, ':AgentCancel did not stop the run')
  assert(agent.state.last_answer == 'Agent run cancelled.', 'the cancelled run answered ' .. tostring(agent.state.last_answer))
  assert(said('agent-lsp: cancelled run-', vim.log.levels.INFO), 'no "cancelled" message: ' .. vim.inspect(notes))

  -- A new file, applied from the menu: the plugin follows, and the file
  -- written holds exactly what the agent wrote.
  vim.cmd('AgentAsk make notes')
  wait(20000, function() return agent.state.previewed ~= nil end, 'no notes proposal')
  id = agent.state.previewed
  local titles = menu('Apply agent proposal')
  assert(vim.tbl_contains(titles, 'Show agent proposal (' .. id .. ')'), 'menu: ' .. vim.inspect(titles))
  wait(20000, function() return said(id .. ' applied') end, 'the menu apply did not apply')
  wait(5000, function() return agent.state.pending == nil and agent.state.previewed == nil end, 'still pending after the menu apply: ' .. tostring(agent.state.pending))
  local notes_buf = vim.fn.bufnr(root .. '/notes.txt')
  assert(notes_buf ~= -1, 'no notes.txt buffer')
  assert(vim.deep_equal(vim.api.nvim_buf_get_lines(notes_buf, 0, -1, false), { 'a', 'b' }), 'notes.txt: ' .. vim.inspect(vim.api.nvim_buf_get_lines(notes_buf, 0, -1, false)))
  vim.api.nvim_buf_call(notes_buf, function() vim.cmd('silent write') end)
  local f = assert(io.open(root .. '/notes.txt', 'rb'))
  local bytes = f:read('*a')
  f:close()
  assert(bytes == 'a\nb\n', 'notes.txt on disk: ' .. vim.inspect(bytes))

  -- A proposal applied behind the plugin's back (another client, a
  -- mapping of the user's): the next ask is not refused.
  vim.cmd('AgentAsk make todo')
  wait(20000, function() return agent.state.previewed ~= nil end, 'no todo proposal')
  id = agent.state.previewed
  assert(server('agent.applyProposal', vim.empty_dict()).applied, 'the direct apply failed')
  vim.cmd('AgentAsk after the bypass')
  wait(20000, function() return agent.state.last_answer == 'Accepted.' end, 'the ask after a direct apply was refused: ' .. vim.inspect(notes))
  assert(not said('still pending'), 'an ask was refused: ' .. vim.inspect(notes))
  assert(vim.fn.bufnr('agent-lsp://' .. id .. '.diff') == -1, 'the directly applied proposal is still previewed')

  -- "Show agent proposal" from the menu opens the diff in a split, the
  -- current window keeping its buffer; "Discard" from the menu drops it.
  vim.cmd('AgentAsk make readme')
  wait(20000, function() return agent.state.previewed ~= nil end, 'no readme proposal')
  id = agent.state.previewed
  vim.cmd('bwipeout! ' .. vim.fn.bufnr('agent-lsp://' .. id .. '.diff')) -- the user closed it
  windows = #vim.api.nvim_list_wins()
  menu('Show agent proposal')
  wait(10000, function() return vim.fn.bufwinnr('agent-lsp://' .. id .. '.diff') ~= -1 end, 'the menu did not show the proposal')
  assert(#vim.api.nvim_list_wins() == windows + 1, 'windows after show: ' .. #vim.api.nvim_list_wins() .. ', before ' .. windows)
  assert(vim.api.nvim_get_current_win() == win and vim.api.nvim_win_get_buf(win) == buf, 'show replaced the current window or its buffer')
  menu('Discard agent proposal')
  wait(10000, function() return said(id .. ' discarded') end, 'the menu discard did not discard')
  wait(5000, function() return agent.state.pending == nil end, 'still pending after the menu discard')
  assert(vim.fn.bufnr('agent-lsp://' .. id .. '.diff') == -1, 'the discarded proposal is still previewed')

  -- "Fix with agent" for a diagnostic of another source, from the default
  -- menu and from :AgentActions.
  local ns = vim.api.nvim_create_namespace('e2e_lint')
  vim.diagnostic.set(ns, buf, { { lnum = 1, col = 4, end_lnum = 1, end_col = 9, message = 'greet is never called', severity = vim.diagnostic.severity.WARN, source = 'e2elint' } })
  vim.api.nvim_win_set_cursor(win, { 2, 0 })
  titles = menu(nil, function() vim.cmd('AgentActions') end)
  assert(vim.tbl_contains(titles, 'Fix with agent: greet is never called'), ':AgentActions: ' .. vim.inspect(titles))
  menu('Fix with agent: greet is never called')
  wait(20000, function() return agent.state.last_answer == 'Nothing to fix.' end, 'the fix did not run: ' .. tostring(agent.state.last_answer))
  local answer = vim.api.nvim_buf_get_lines(vim.fn.bufnr('agent-lsp://answer'), 0, -1, false)
  assert(vim.deep_equal(answer, { 'Nothing to fix.' }), 'answer split: ' .. vim.inspect(answer))

  -- A run the plugin does not wait for (picked from the menu with no
  -- handler of the plugin's) tells its answer in a message.
  server('agent.ask', { prompt = 'unwaited question', uri = vim.uri_from_bufnr(buf) })
  wait(20000, function() return said('Unwaited answer.') end, 'the unwaited answer was not shown: ' .. vim.inspect(notes))

  -- Completion as items: a suggestion for the line being typed.
  vim.api.nvim_buf_set_lines(buf, -1, -1, false, { 'pri' })
  local pos = { textDocument = { uri = vim.uri_from_bufnr(buf) }, position = { line = 3, character = 3 } }
  local completion = vim.lsp.buf_request_sync(buf, 'textDocument/completion', pos, 10000)
  local item
  for _, a in pairs(completion or {}) do
    for _, it in ipairs((a.result or {}).items or {}) do
      item = it
    end
  end
  assert(item and item.textEdit and item.textEdit.newText == 'print(greet())', 'completion: ' .. vim.inspect(completion))
  assert(item.textEdit.range.start.character == 0 and item.textEdit.range['end'].character == 3, 'range ' .. vim.inspect(item.textEdit.range))

  -- :checkhealth agent_lsp reports the binary, the server and the model.
  vim.cmd('checkhealth agent_lsp')
  local report = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
  for _, want_text in ipairs({ 'agent-lsp (devel)', 'attached to hello.py', 'model gpt-test', 'next edit suggestions from ', 'nes-chat', 'Neovim 0.' }) do
    assert(report:find(want_text, 1, true), 'checkhealth lacks "' .. want_text .. '":\n' .. report)
  end
  assert(not report:find('ERROR', 1, true) and not report:find('WARN', 1, true), 'checkhealth reports a problem:\n' .. report)
end)
if not ok then
  finish(tostring(err))
  return
end

-- In the main loop: sleep and poll yield to it, keys are typed.
local co = coroutine.running
local function sleep(ms)
  local me = co()
  vim.defer_fn(function() coroutine.resume(me) end, ms)
  coroutine.yield()
end
local function poll(ms, cond, what)
  local deadline = vim.loop.now() + ms
  while not cond() do
    assert(vim.loop.now() < deadline, what)
    sleep(20)
  end
end
local function type_keys(keys)
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(keys, true, false, true), 't', false)
end

-- mapped says the buffer has a mapping of its own for lhs in mode (0.11+
-- maps Tab in insert mode for snippets everywhere).
local function mapped(lhs, mode)
  return vim.fn.maparg(lhs, mode, false, true).buffer == 1
end

-- Next edit: rename a parameter; the suggestion renames its use.
local function next_edit()
  local ne = require('agent_lsp.next_edit')
  -- A file on disk: text typed into a new one would be one edit with the
  -- rename, which the server leaves to the user.
  local f = assert(io.open(root .. '/names.py', 'w'))
  f:write('def welcome(name):\n    return "Welcome, " + name\n')
  f:close()
  vim.cmd('edit ' .. root .. '/names.py')
  local buf = vim.api.nvim_get_current_buf()
  poll(10000, function() return agent.running().attached_buffers[buf] end, 'names.py not attached')
  assert(not ne.shown[buf], 'a suggestion before the rename: ' .. vim.inspect(ne.shown[buf]))
  assert(not mapped('<Tab>', 'n') and not mapped('<Tab>', 'i'), 'Tab mapped with no suggestion')
  type_keys('gg0f(lciwguest<Esc>')
  poll(10000, function() return ne.shown[buf] ~= nil end, 'no suggestion after the rename')
  local use = '    return "Welcome, " + name'
  local col = use:find('name', 1, true) - 1
  local deleted, added
  for _, m in ipairs(vim.api.nvim_buf_get_extmarks(buf, ne.ns, 0, -1, { details = true })) do
    local row, c, d = m[2], m[3], m[4]
    if d.hl_group == 'AgentNextEditDelete' then
      deleted = { row, c, d.end_row, d.end_col }
    end
    for _, chunk in ipairs(d.virt_text or {}) do
      if chunk[1] == 'guest' then
        added = { row, c, d.virt_text_pos }
      end
    end
  end
  assert(vim.deep_equal(deleted, { 1, col, 1, col + 4 }), 'the deleted text marked at ' .. vim.inspect(deleted))
  local pos = vim.fn.has('nvim-0.10') == 1 and 'inline' or 'eol'
  assert(vim.deep_equal(added, { 1, col + 4, pos }), 'the new text shown at ' .. vim.inspect(added) .. ', want ' .. pos)
  assert(mapped('<Tab>', 'n') and mapped('<Tab>', 'i') and mapped('<Esc>', 'n'), 'keys not mapped in the buffer while a suggestion shows')

  -- Dismissed: the marks and the keys go.
  type_keys('<Esc>')
  poll(5000, function() return ne.shown[buf] == nil end, 'Esc did not dismiss')
  assert(#vim.api.nvim_buf_get_extmarks(buf, ne.ns, 0, -1, {}) == 0, 'marks left after the dismissal')
  assert(not mapped('<Tab>', 'n') and not mapped('<Esc>', 'n') and not mapped('<Tab>', 'i'), 'keys left mapped after the dismissal')
  assert(vim.api.nvim_buf_get_lines(buf, 1, 2, false)[1] == use, 'the dismissal changed the text')

  -- Asked again: Tab jumps to the edit, Tab accepts it.
  vim.cmd('AgentNextEdit')
  poll(10000, function() return ne.shown[buf] ~= nil end, ':AgentNextEdit showed nothing')
  assert(vim.api.nvim_win_get_cursor(0)[1] == 1, 'the cursor left the renamed line')
  type_keys('<Tab>')
  poll(5000, function() return vim.api.nvim_win_get_cursor(0)[1] == 2 end, 'Tab did not jump to the edit')
  assert(vim.api.nvim_win_get_cursor(0)[2] == col, 'jumped to column ' .. vim.api.nvim_win_get_cursor(0)[2])
  assert(vim.api.nvim_buf_get_lines(buf, 1, 2, false)[1] == use, 'the jump changed the text')
  -- Accepted from insert mode (the mapping there is an expression).
  type_keys('a<Tab>')
  local want = { 'def welcome(guest):', '    return "Welcome, " + guest' }
  poll(5000, function() return vim.deep_equal(vim.api.nvim_buf_get_lines(buf, 0, -1, false), want) end,
    'not accepted: ' .. vim.inspect(vim.api.nvim_buf_get_lines(buf, 0, -1, false)))
  type_keys('<Esc>')
  local status
  poll(10000, function()
    status = server('agent.status').nextEdits
    return status.accepted == 1
  end, 'the server did not count the acceptance')
  assert(type(status.model) == 'string' and status.model ~= '' and status.calls >= 1, 'nextEdits ' .. vim.inspect(status))
  assert(not mapped('<Tab>', 'n') and not mapped('<Tab>', 'i'), 'Tab still mapped after the acceptance')
end

-- session_options: :AgentThinking reaches the server (agent.setSessionOptions),
-- and agent.status has the context meter of the runs so far.
local function session_options()
  local st
  vim.cmd('AgentThinking high')
  poll(5000, function()
    st = server('agent.status')
    return st.thinking == 'high'
  end, ':AgentThinking high did not reach the server')
  vim.cmd('AgentThinking default')
  poll(5000, function()
    st = server('agent.status')
    return st.thinking == ''
  end, ':AgentThinking default did not reach the server')
  assert(type(st.model) == 'string' and st.model ~= '', 'agent.status model ' .. vim.inspect(st.model))
  assert(st.context and st.context.used > 0 and st.context.size > 0, 'agent.status context ' .. vim.inspect(st.context))
end

local function final_checks()
  for _, n in ipairs(notes) do
    assert(n.level < vim.log.levels.ERROR, 'an error was shown: ' .. n.msg)
    assert(not n.msg:lower():find('deprecated', 1, true), 'a deprecation was shown: ' .. n.msg)
  end
  for _, params in ipairs(sent) do
    assert(not params:find('"arguments":[[]', 1, true), 'a command sent with an empty list for arguments: ' .. params)
  end
  assert(#sent > 10, 'commands sent: ' .. vim.inspect(sent))
  assert(#deprecated == 0, 'the plugin used deprecated functions: ' .. table.concat(deprecated, '\n'))
  assert(vim.v.errmsg == '', 'an error message: ' .. vim.v.errmsg)
end

coroutine.wrap(function()
  local done, why = pcall(next_edit)
  if done then
    done, why = pcall(session_options)
  end
  if done then
    done, why = pcall(final_checks)
  end
  finish(done and 'ok' or tostring(why))
end)()
