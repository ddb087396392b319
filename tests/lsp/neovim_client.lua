-- Neovim as the language client of `boxcheck lsp`, driven headless by tests/test_lsp_neovim.py.
--
-- The plan (a JSON file named by $BOXCHECK_PLAN) names the set-up to load (the README's init.lua
-- snippet, as written), the file to open, where to hover and what to type; every step's result goes
-- to plan.out as JSON.  Works with Neovim 0.7 (Debian bookworm) and later.

local plan = vim.fn.json_decode(table.concat(vim.fn.readfile(vim.env.BOXCHECK_PLAN), "\n"))
local result = {}
local WAIT_MS = plan.wait_ms

local function diagnostics(bufnr)
  local out = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    local lsp = d.user_data and d.user_data.lsp or {}
    table.insert(out, {
      lnum = d.lnum, col = d.col, end_lnum = d.end_lnum, end_col = d.end_col,
      severity = d.severity, source = d.source, message = d.message, code = d.code or lsp.code,
    })
  end
  return out
end

local function has_col(bufnr, col)
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    if d.col == col then return true end
  end
  return false
end

local ok, err = pcall(function()
  -- as an init.lua would: file types detected, then the snippet's FileType autocommand starts the server
  vim.cmd("filetype on")
  dofile(plan.setup)
  vim.cmd("edit " .. vim.fn.fnameescape(plan.file))
  local bufnr = vim.api.nvim_get_current_buf()
  result.filetype = vim.bo[bufnr].filetype
  local function boxcheck_client()
    local clients = vim.lsp.get_clients and vim.lsp.get_clients({ bufnr = bufnr }) or vim.lsp.buf_get_clients(bufnr)
    for _, client in pairs(clients) do
      if client.name == "boxcheck" then return client end
    end
  end
  result.attached = vim.wait(WAIT_MS, function()
    local client = boxcheck_client()
    return client ~= nil and client.initialized == true
  end, 20)
  local client = boxcheck_client()
  local client_id = client and client.id
  result.offset_encoding = client and client.offset_encoding

  result.received = vim.wait(WAIT_MS, function() return #vim.diagnostic.get(bufnr) > 0 end, 20)
  result.opened = diagnostics(bufnr)

  -- hover where the cursor is: Neovim turns the byte column into the negotiated encoding itself
  vim.api.nvim_win_set_cursor(0, { plan.hover.row + 1, plan.hover.col })
  local params = vim.lsp.util.make_position_params()
  result.hover_position = params.position
  local responses = vim.lsp.buf_request_sync(bufnr, "textDocument/hover", params, WAIT_MS) or {}
  for _, response in pairs(responses) do
    if response.result then
      result.hover = response.result.contents.value
    end
    if response.err then
      result.hover_error = vim.inspect(response.err)
    end
  end

  -- type in the buffer: Neovim sends an incremental didChange
  local edit = plan.edit
  vim.api.nvim_buf_set_text(bufnr, edit.row, edit.col, edit.row, edit.col, { edit.text })
  result.changed = vim.wait(WAIT_MS, function() return has_col(bufnr, plan.expect_col_after_edit) end, 20)
  result.after_edit = diagnostics(bufnr)

  vim.lsp.stop_client(client_id)
  result.stopped = vim.wait(WAIT_MS, function() return vim.lsp.client_is_stopped(client_id) end, 20)
end)

result.ok = ok
if not ok then result.error = tostring(err) end
vim.fn.writefile({ vim.fn.json_encode(result) }, plan.out)
vim.cmd("qall!")
