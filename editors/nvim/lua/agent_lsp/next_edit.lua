-- Next edit suggestions: after the text changes the plugin asks the server
-- (textDocument/copilotInlineEdit, as copilot-language-server serves it)
-- for the edit the user will likely make next, anywhere near the cursor,
-- and previews it: the text it replaces highlighted, the new text as
-- virtual text. The accept key jumps to the edit, then applies it and runs
-- the edit's command (agent.acceptInlineEdit) so the next suggestion builds
-- on it; the dismiss key drops it. Both keys are mapped buffer-locally only
-- while a suggestion shows, so they work as before otherwise. The server
-- answers nothing unless the user set a next-edit model (settings.nes).
local M = {}

M.ns = vim.api.nvim_create_namespace('agent_lsp_next_edit')

local config = {
  enabled = true,
  accept = '<Tab>', -- jump to the edit, then accept it (normal and insert mode)
  dismiss = '<Esc>', -- normal mode
  debounce_ms = 50, -- the server debounces too (nes.debounceMs); this spares requests
}

-- M.shown[bufnr] is the suggestion shown in the buffer: { edit, tick (the
-- buffer's changedtick it is for: any change makes it stale),
-- saved = the buffer's own mappings our keys hid }.
M.shown = {}
local pending = {} -- bufnr -> { client, id } of the request in flight
local timers = {} -- bufnr -> debounce timer

local function has(feature)
  return vim.fn.has(feature) == 1
end

local function agent()
  return require('agent_lsp')
end

-- call runs client c's method: Neovim 0.11 made them methods (c:request),
-- before they were fields (c.request).
local function call(c, name, ...)
  if has('nvim-0.11') then
    return c[name](c, ...)
  end
  return c[name](...)
end

-- byte_col is the byte index in line of LSP character offset character,
-- counted in encoding enc. Neovim 0.11 changed vim.str_byteindex's
-- arguments (the old ones are deprecated there).
local function byte_col(line, character, enc)
  if enc == 'utf-8' then
    return math.min(character, #line)
  end
  local ok, col
  if has('nvim-0.11') then
    ok, col = pcall(vim.str_byteindex, line, enc, character, false)
  else
    ok, col = pcall(vim.str_byteindex, line, character, enc == 'utf-16')
  end
  return ok and col or #line
end

local function line_of(bufnr, row)
  return vim.api.nvim_buf_get_lines(bufnr, row, row + 1, false)[1] or ''
end

-- span is the edit's range as 0-based byte positions in the buffer, or nil
-- when the buffer no longer has those lines. A position on the line after
-- the last (the end of a text ending in a line break) is the last line's end.
local function span(bufnr, edit, enc)
  local count = vim.api.nvim_buf_line_count(bufnr)
  local function pos(p)
    if p.line > count or p.line == count and p.character > 0 then
      return nil
    elseif p.line == count then
      return count - 1, #line_of(bufnr, count - 1)
    end
    return p.line, byte_col(line_of(bufnr, p.line), p.character, enc)
  end
  local sr, sc = pos(edit.range.start)
  local er, ec = pos(edit.range['end'])
  if not sr or not er then
    return nil
  end
  return sr, sc, er, ec
end

local function tick(bufnr)
  return vim.api.nvim_buf_get_changedtick(bufnr)
end

local function encoding()
  local c = agent().running()
  return c and c.offset_encoding or 'utf-16'
end

-- _keys_of is what the mapping m (maparg's dict; empty: none) of lhs types:
-- its expression's keys, its right-hand side, or lhs itself. It is called
-- from our expr mapping, under textlock: an expr callback belongs there,
-- but a plain one (which may change the buffer: E565) runs just after.
function M._keys_of(m, lhs)
  local keys = lhs
  if type(m) == 'table' and m.callback and m.expr == 1 then
    local r = m.callback()
    keys = type(r) == 'string' and r or ''
  elseif type(m) == 'table' and m.callback then
    vim.schedule(m.callback)
    keys = ''
  elseif type(m) == 'table' and m.rhs and m.rhs ~= '' then
    keys = m.expr == 1 and vim.api.nvim_eval(m.rhs) or m.rhs
  end
  return vim.api.nvim_replace_termcodes(keys, true, true, true)
end

-- map_keys maps the accept and dismiss keys in bufnr, keeping the buffer's
-- own mappings of them to put back.
local function map_keys(bufnr, state)
  state.saved = {}
  local function map(mode, lhs, fn, desc, expr)
    if not lhs or lhs == '' then
      return
    end
    local old = vim.api.nvim_buf_call(bufnr, function()
      return vim.fn.maparg(lhs, mode, false, true)
    end)
    if type(old) == 'table' and old.buffer == 1 then
      table.insert(state.saved, { mode = mode, lhs = lhs, map = old })
    end
    vim.api.nvim_buf_set_keymap(bufnr, mode, lhs, '', { callback = fn, noremap = true, silent = true, nowait = true, desc = desc, expr = expr })
    table.insert(state.mapped, { mode = mode, lhs = lhs })
  end
  state.mapped = {}
  local function accept()
    M.accept(bufnr)
  end
  map('n', config.accept, accept, 'agent-lsp: jump to / accept the next edit')
  -- In insert mode the key stays the completion menu's while that shows:
  -- what it did before (the user's mapping, or itself) runs instead.
  local accept_i = config.accept
  if accept_i and accept_i ~= '' then
    local before = vim.api.nvim_buf_call(bufnr, function()
      return vim.fn.maparg(accept_i, 'i', false, true)
    end)
    map('i', accept_i, function()
      if vim.fn.pumvisible() == 1 then
        return M._keys_of(before, accept_i)
      end
      vim.schedule(accept) -- an expr mapping may not change the buffer
      return ''
    end, 'agent-lsp: jump to / accept the next edit', true)
  end
  map('n', config.dismiss, function()
    M.dismiss(bufnr)
  end, 'agent-lsp: dismiss the next edit')
end

local function unmap_keys(bufnr, state)
  for _, m in ipairs(state.mapped or {}) do
    pcall(vim.api.nvim_buf_del_keymap, bufnr, m.mode, m.lhs)
  end
  for _, s in ipairs(state.saved or {}) do
    local old = s.map
    pcall(vim.api.nvim_buf_set_keymap, bufnr, s.mode, s.lhs, old.rhs or '', {
      callback = old.callback, noremap = old.noremap == 1, silent = old.silent == 1,
      expr = old.expr == 1, nowait = old.nowait == 1, desc = old.desc,
    })
  end
end

-- clear removes bufnr's suggestion: its marks and our keys.
function M.clear(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  local state = M.shown[bufnr]
  M.shown[bufnr] = nil
  if vim.api.nvim_buf_is_valid(bufnr) then
    vim.api.nvim_buf_clear_namespace(bufnr, M.ns, 0, -1)
    if state then
      unmap_keys(bufnr, state)
    end
  end
  return state ~= nil
end

-- add_chunks is text's lines as virtual lines.
local function add_chunks(lines)
  local out = {}
  for _, l in ipairs(lines) do
    table.insert(out, { { l, 'AgentNextEditAdd' } })
  end
  return out
end

-- show previews edit in bufnr: the replaced text highlighted as deleted;
-- whole new lines as virtual lines where they would go; else the new text
-- inline after the replaced text (Neovim 0.10+) or at the end of its line
-- (before), its further lines as virtual lines below.
local function show(bufnr, edit, at)
  M.clear(bufnr)
  local sr, sc, er, ec = span(bufnr, edit, encoding())
  if not sr then
    return
  end
  local function mark(row, col, opts)
    vim.api.nvim_buf_set_extmark(bufnr, M.ns, row, col, opts)
  end
  if sr ~= er or sc ~= ec then
    mark(sr, sc, { end_row = er, end_col = ec, hl_group = 'AgentNextEditDelete' })
  end
  local text = edit.text or ''
  local s, e = edit.range.start, edit.range['end']
  local lines = vim.split(text, '\n', { plain = true })
  if s.character == 0 and e.character == 0 and text:sub(-1) == '\n' then
    -- Whole lines: above the line the range ends at, or below the last.
    table.remove(lines) -- the final line break ends the last line
    local count = vim.api.nvim_buf_line_count(bufnr)
    if e.line < count then
      mark(e.line, 0, { virt_lines = add_chunks(lines), virt_lines_above = true })
    else
      mark(count - 1, 0, { virt_lines = add_chunks(lines) })
    end
  else
    local first = table.remove(lines, 1)
    local opts = {}
    if first ~= '' then
      if has('nvim-0.10') then
        opts.virt_text, opts.virt_text_pos = { { first, 'AgentNextEditAdd' } }, 'inline'
      else
        opts.virt_text, opts.virt_text_pos = { { ' → ', 'AgentNextEditHint' }, { first, 'AgentNextEditAdd' } }, 'eol'
      end
    end
    if #lines > 0 then
      opts.virt_lines = add_chunks(lines)
    end
    if next(opts) then
      mark(er, ec, opts)
    end
  end
  local state = { edit = edit, tick = at }
  M.shown[bufnr] = state
  map_keys(bufnr, state)
end

-- preview shows edit (a copilotInlineEdit answer's) in bufnr as a
-- suggestion for the buffer's text as it is.
function M.preview(bufnr, edit)
  show(bufnr, edit, tick(bufnr))
end

-- request asks the server for the next edit at the cursor of the current
-- window, cancelling the request before it: only the newest answer is
-- wanted, and one for a version the buffer has left is dropped.
function M.request()
  local bufnr = vim.api.nvim_get_current_buf()
  local c = agent().running()
  if not c or not c.attached_buffers[bufnr] then
    return
  end
  local prev = pending[bufnr]
  if prev then
    pcall(call, prev.client, 'cancel_request', prev.id)
    pending[bufnr] = nil
  end
  local params = vim.lsp.util.make_position_params(0, c.offset_encoding)
  -- The request flushes the pending didChange first, so this is the
  -- version the server has.
  local version, at = vim.lsp.util.buf_versions[bufnr], tick(bufnr)
  params.textDocument.version = version
  local ok, id
  ok, id = call(c, 'request', 'textDocument/copilotInlineEdit', params, function(err, result)
    if pending[bufnr] and pending[bufnr].id == id then
      pending[bufnr] = nil
    end
    if err or type(result) ~= 'table' or not vim.api.nvim_buf_is_valid(bufnr) or tick(bufnr) ~= at then
      return -- failed, or typed on meanwhile: a newer request is coming
    end
    local edit = type(result.edits) == 'table' and result.edits[1] or nil
    if not edit or (edit.textDocument and edit.textDocument.version ~= version) then
      return
    end
    show(bufnr, edit, at)
  end, bufnr)
  if ok and id then
    pending[bufnr] = { client = c, id = id }
  end
end

-- on_change drops the suggestion the change made stale and asks again
-- shortly after the last change of a burst.
local function on_change(bufnr)
  local state = M.shown[bufnr]
  if state and tick(bufnr) ~= state.tick then
    M.clear(bufnr)
  end
  local c = agent().running()
  if not config.enabled or not c or not c.attached_buffers[bufnr] then
    return
  end
  if timers[bufnr] then
    timers[bufnr]:stop()
    timers[bufnr]:close()
  end
  local timer = (vim.uv or vim.loop).new_timer() -- vim.uv from 0.10
  timers[bufnr] = timer
  timer:start(config.debounce_ms, 0, vim.schedule_wrap(function()
    if timers[bufnr] == timer then
      timers[bufnr] = nil
      timer:close()
    end
    if vim.api.nvim_get_current_buf() == bufnr then
      M.request()
    end
  end))
end

-- accept jumps to the suggestion when the cursor is elsewhere, else applies
-- it and then runs its command, which goes after the edit's didChange (the
-- request flushes it), so the server counts it and builds the next on it.
function M.accept(bufnr)
  bufnr = (bufnr and bufnr ~= 0) and bufnr or vim.api.nvim_get_current_buf()
  local state = M.shown[bufnr]
  if not state then
    return false
  end
  local enc = encoding()
  local sr, sc, er = span(bufnr, state.edit, enc)
  if not sr or tick(bufnr) ~= state.tick then
    M.clear(bufnr)
    return false
  end
  -- At it: the cursor on one of its lines (as shown: one past the end is the last).
  local row = vim.api.nvim_win_get_cursor(0)[1] - 1
  if vim.api.nvim_get_current_buf() == bufnr and (row < sr or row > er) then
    vim.api.nvim_win_set_cursor(0, { sr + 1, sc })
    return true
  end
  local edit = state.edit
  M.clear(bufnr)
  local lines = vim.split(edit.text, '\n', { plain = true })
  if edit.range.start.line >= vim.api.nvim_buf_line_count(bufnr) then
    -- Lines after the last: Neovim 0.10's apply_text_edits would add an empty one too.
    local count = vim.api.nvim_buf_line_count(bufnr)
    vim.api.nvim_buf_set_lines(bufnr, count, count, false, vim.split((edit.text:gsub('\n$', '')), '\n', { plain = true }))
  else
    vim.lsp.util.apply_text_edits({ { range = edit.range, newText = edit.text } }, bufnr, enc)
  end
  -- The cursor goes to the end of the new text (of its last line, for whole lines).
  local col
  if #lines > 1 and lines[#lines] == '' and edit.range.start.character == 0 then
    table.remove(lines)
    row, col = edit.range.start.line + #lines - 1, #lines[#lines]
  else
    row, col = sr + #lines - 1, (#lines == 1 and sc or 0) + #lines[#lines]
  end
  if vim.api.nvim_get_current_buf() == bufnr then
    pcall(vim.api.nvim_win_set_cursor, 0, { row + 1, math.max(col - (vim.fn.mode() == 'i' and 0 or 1), 0) })
  end
  local c = agent().running()
  if c and type(edit.command) == 'table' then
    call(c, 'request', 'workspace/executeCommand', { command = edit.command.command, arguments = edit.command.arguments }, function(err)
      if err then
        vim.notify('agent-lsp: ' .. edit.command.command .. ': ' .. (err.message or vim.inspect(err)), vim.log.levels.WARN)
      end
    end, bufnr)
  end
  return true
end

function M.dismiss(bufnr)
  return M.clear(bufnr)
end

function M.setup(opts)
  config = vim.tbl_extend('force', config, opts or {})
  vim.cmd('highlight default link AgentNextEditDelete DiffDelete')
  vim.cmd('highlight default link AgentNextEditAdd DiffAdd')
  vim.cmd('highlight default link AgentNextEditHint Comment')
  local cmd = vim.api.nvim_create_user_command
  cmd('AgentNextEdit', M.request, { desc = 'Ask for the next edit at the cursor now' })
  cmd('AgentNextEditAccept', function()
    M.accept()
  end, { desc = 'Jump to the suggested next edit, or accept it when there' })
  cmd('AgentNextEditDismiss', function()
    M.dismiss()
  end, { desc = 'Dismiss the suggested next edit' })
  local group = vim.api.nvim_create_augroup('agent_lsp_next_edit', { clear = true })
  vim.api.nvim_create_autocmd({ 'TextChanged', 'TextChangedI' }, {
    group = group,
    callback = function(args)
      on_change(args.buf)
    end,
  })
  vim.api.nvim_create_autocmd({ 'BufLeave', 'BufUnload' }, {
    group = group,
    callback = function(args)
      M.clear(args.buf)
    end,
  })
end

return M
