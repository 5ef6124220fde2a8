-- Headless test of the next-edit preview and keys on every Neovim the e2e
-- runs (no server: the edits are given as a copilotInlineEdit answer's): the
-- marks each kind of edit shows, the keys mapped only while one shows with
-- the buffer's own mapping put back, and accepting one. Run by
-- e2e_test.go; writes "ok" or the failure to $RESULT, then quits.
local H = dofile(debug.getinfo(1, 'S').source:sub(2):match('(.*/)') .. 'harness.lua')
local finish = H.finish
H.record(false)
local deprecated = H.deprecated

local ok, err = pcall(function()
  local ne = require('agent_lsp.next_edit')
  ne.setup({})
  local buf = vim.api.nvim_get_current_buf()
  local function reset()
    ne.clear(buf)
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, { 'a = 1', 'b = 2', 'c = 3' })
  end
  local function edit(sl, sc, el, ec, text)
    return { text = text, range = { start = { line = sl, character = sc }, ['end'] = { line = el, character = ec } } }
  end
  -- marks is what the preview shows: { row, col, what } sorted.
  local function marks()
    local out = {}
    for _, m in ipairs(vim.api.nvim_buf_get_extmarks(buf, ne.ns, 0, -1, { details = true })) do
      local row, col, d = m[2], m[3], m[4]
      if d.hl_group then
        table.insert(out, { row, col, 'delete to ' .. d.end_row .. ':' .. d.end_col })
      end
      if d.virt_text then
        local text = {}
        for _, chunk in ipairs(d.virt_text) do
          table.insert(text, chunk[1])
        end
        table.insert(out, { row, col, d.virt_text_pos .. ' ' .. table.concat(text) })
      end
      if d.virt_lines then
        local lines = {}
        for _, l in ipairs(d.virt_lines) do
          table.insert(lines, l[1][1])
        end
        table.insert(out, { row, col, (d.virt_lines_above and 'lines above ' or 'lines below ') .. table.concat(lines, '|') })
      end
    end
    return out
  end
  local inline = vim.fn.has('nvim-0.10') == 1
  local function check(e, want)
    reset()
    ne.preview(buf, e)
    local got = marks()
    assert(vim.deep_equal(got, want), vim.inspect(e) .. ' shows ' .. vim.inspect(got) .. ', want ' .. vim.inspect(want))
  end
  -- A word replaced by two lines: the new first line after the old word.
  check(edit(0, 4, 0, 5, '10\n# ten'), {
    { 0, 4, 'delete to 0:5' },
    { 0, 5, inline and 'inline 10' or 'eol  → 10' },
    { 0, 5, 'lines below # ten' },
  })
  -- Whole lines inserted: where they go.
  check(edit(1, 0, 1, 0, 'x = 0\ny = 0\n'), { { 1, 0, 'lines above x = 0|y = 0' } })
  check(edit(3, 0, 3, 0, 'd = 4\n'), { { 2, 0, 'lines below d = 4' } })
  -- The last line deleted (its range ends past it).
  check(edit(2, 0, 3, 0, ''), { { 2, 0, 'delete to 2:5' } })

  -- The keys: mapped while one shows, the buffer's own Tab put back after.
  reset()
  vim.api.nvim_buf_set_keymap(buf, 'n', '<Tab>', ':let g:tabbed = 1<CR>', { noremap = true })
  local function tab(mode)
    local m = vim.fn.maparg('<Tab>', mode, false, true)
    return m.buffer == 1 and (m.rhs or '') or nil
  end
  ne.preview(buf, edit(2, 4, 2, 5, '30'))
  assert(tab('n') == '' and tab('i') == '', 'Tab while shown: ' .. vim.inspect({ tab('n'), tab('i') }))
  ne.dismiss(buf)
  assert(tab('n') == ':let g:tabbed = 1<CR>' and tab('i') == nil, 'Tab after: ' .. vim.inspect({ tab('n'), tab('i') }))
  assert(#marks() == 0, 'marks after the dismissal')

  -- While the completion menu shows, insert mode's key does what it did
  -- before: the user's mapping (a right-hand side, an expression, a
  -- callback) or the key itself.
  local tc = function(k) return vim.api.nvim_replace_termcodes(k, true, true, true) end
  assert(ne._keys_of({}, '<Tab>') == tc('<Tab>'), 'no mapping before')
  assert(ne._keys_of({ rhs = '<C-n>', expr = 0 }, '<Tab>') == tc('<C-n>'), 'a mapping before')
  assert(ne._keys_of({ rhs = '"<C-p>"', expr = 1 }, '<Tab>') == tc('<C-p>'), 'an expression mapping before')
  assert(ne._keys_of({ callback = function() return '<C-y>' end, expr = 1 }, '<Tab>') == tc('<C-y>'), 'an expr callback before')
  -- A plain callback runs after our expr mapping returns, outside its
  -- textlock: one that changes the buffer (a snippet expanding) works.
  local changed_by_callback = false
  vim.keymap.set('i', '<F7>', function()
    return ne._keys_of({ callback = function()
      vim.api.nvim_buf_set_lines(buf, 0, 1, false, { 'a = 1 -- expanded' })
      changed_by_callback = true
    end, expr = 0 }, '<F7>')
  end, { expr = true, buffer = buf })
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes('i<F7><Esc>', true, false, true), 'x', false)
  vim.wait(2000, function() return changed_by_callback end)
  assert(changed_by_callback and vim.api.nvim_buf_get_lines(buf, 0, 1, false)[1] == 'a = 1 -- expanded',
    'a plain callback before: ' .. vim.inspect(vim.api.nvim_buf_get_lines(buf, 0, 1, false)) .. ' ' .. vim.v.errmsg)
  vim.keymap.del('i', '<F7>', { buffer = buf })
  reset()

  -- Accept: the first jumps to the edit, the second applies it.
  vim.api.nvim_win_set_cursor(0, { 1, 0 })
  ne.preview(buf, edit(2, 4, 2, 5, '30\n# thirty'))
  assert(ne.accept(buf) and vim.api.nvim_win_get_cursor(0)[1] == 3, 'no jump')
  assert(vim.api.nvim_buf_get_lines(buf, 2, 3, false)[1] == 'c = 3', 'the jump changed the text')
  assert(ne.accept(buf), 'not accepted')
  local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  assert(vim.deep_equal(lines, { 'a = 1', 'b = 2', 'c = 30', '# thirty' }), 'accepted: ' .. vim.inspect(lines))
  assert(vim.deep_equal(vim.api.nvim_win_get_cursor(0), { 4, 7 }), 'cursor after: ' .. vim.inspect(vim.api.nvim_win_get_cursor(0)))
  assert(ne.shown[buf] == nil and #marks() == 0 and tab('n') == ':let g:tabbed = 1<CR>', 'left after the acceptance')
  -- At the end of the buffer: the jump reaches it, the next accepts.
  vim.api.nvim_win_set_cursor(0, { 1, 0 })
  ne.preview(buf, edit(4, 0, 4, 0, 'end\n'))
  assert(ne.accept(buf) and vim.api.nvim_win_get_cursor(0)[1] == 4, 'no jump to the end')
  assert(ne.accept(buf), 'not accepted at the end')
  lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  assert(vim.deep_equal(lines, { 'a = 1', 'b = 2', 'c = 30', '# thirty', 'end' }), 'appended: ' .. vim.inspect(lines))
  assert(vim.deep_equal(vim.api.nvim_win_get_cursor(0), { 5, 2 }), 'cursor after the append: ' .. vim.inspect(vim.api.nvim_win_get_cursor(0)))
  -- A preview made stale by typing is not applied.
  ne.preview(buf, edit(0, 4, 0, 5, '9'))
  vim.api.nvim_buf_set_lines(buf, 1, 2, false, { 'b = 3' })
  assert(not ne.accept(buf) and vim.api.nvim_buf_get_lines(buf, 0, 1, false)[1] == 'a = 1', 'a stale suggestion was applied')
  assert(#deprecated == 0, 'deprecated: ' .. table.concat(deprecated, '\n'))
  assert(vim.v.errmsg == '', 'an error message: ' .. vim.v.errmsg)
end)
finish(ok and 'ok' or tostring(err))
