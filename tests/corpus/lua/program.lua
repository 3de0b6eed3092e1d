-- A larger program: JSON encoder/decoder, a tokenizer + recursive-descent
-- expression evaluator, and a word-frequency count.
local json = {}

local escapes = { ['"'] = '\\"', ["\\"] = "\\\\", ["\b"] = "\\b", ["\f"] = "\\f",
  ["\n"] = "\\n", ["\r"] = "\\r", ["\t"] = "\\t" }

local function is_array(t)
  local n = 0
  for _ in pairs(t) do n = n + 1 end
  for i = 1, n do if t[i] == nil then return false end end
  return true, n
end

function json.encode(v)
  local ty = type(v)
  if ty == "nil" then return "null"
  elseif ty == "boolean" then return tostring(v)
  elseif ty == "number" then
    if math.type(v) == "integer" then return tostring(v) end
    return string.format("%.14g", v)
  elseif ty == "string" then
    return '"' .. v:gsub('[%c"\\]', function(c)
      return escapes[c] or string.format("\\u%04x", c:byte())
    end) .. '"'
  elseif ty == "table" then
    local arr, n = is_array(v)
    local out = {}
    if arr and n > 0 then
      for i = 1, n do out[i] = json.encode(v[i]) end
      return "[" .. table.concat(out, ",") .. "]"
    end
    local keys = {}
    for k in pairs(v) do keys[#keys + 1] = tostring(k) end
    table.sort(keys)
    for i, k in ipairs(keys) do out[i] = json.encode(k) .. ":" .. json.encode(v[k]) end
    return "{" .. table.concat(out, ",") .. "}"
  end
  error("cannot encode " .. ty)
end

function json.decode(s)
  local pos = 1
  local function ws() pos = s:find("[^ \t\r\n]", pos) or #s + 1 end
  local function err(what) error(string.format("json: %s at position %d", what, pos), 0) end
  local value
  local function str()
    local out = {}
    pos = pos + 1
    while true do
      local c = s:sub(pos, pos)
      if c == "" then err("unterminated string") end
      if c == '"' then pos = pos + 1; break end
      if c == "\\" then
        local e = s:sub(pos + 1, pos + 1)
        local map = { b = "\b", f = "\f", n = "\n", r = "\r", t = "\t" }
        if e == "u" then
          out[#out + 1] = utf8.char(tonumber(s:sub(pos + 2, pos + 5), 16))
          pos = pos + 6
        else
          out[#out + 1] = map[e] or e
          pos = pos + 2
        end
      else
        out[#out + 1] = c
        pos = pos + 1
      end
    end
    return table.concat(out)
  end
  function value()
    ws()
    local c = s:sub(pos, pos)
    if c == "{" then
      local t = {}
      pos = pos + 1; ws()
      if s:sub(pos, pos) == "}" then pos = pos + 1; return t end
      while true do
        ws()
        if s:sub(pos, pos) ~= '"' then err("expected key") end
        local k = str()
        ws()
        if s:sub(pos, pos) ~= ":" then err("expected ':'") end
        pos = pos + 1
        t[k] = value()
        ws()
        local d = s:sub(pos, pos)
        pos = pos + 1
        if d == "}" then return t end
        if d ~= "," then err("expected ',' or '}'") end
      end
    elseif c == "[" then
      local t = {}
      pos = pos + 1; ws()
      if s:sub(pos, pos) == "]" then pos = pos + 1; return t end
      while true do
        t[#t + 1] = value()
        ws()
        local d = s:sub(pos, pos)
        pos = pos + 1
        if d == "]" then return t end
        if d ~= "," then err("expected ',' or ']'") end
      end
    elseif c == '"' then return str()
    elseif s:find("^true", pos) then pos = pos + 4; return true
    elseif s:find("^false", pos) then pos = pos + 5; return false
    elseif s:find("^null", pos) then pos = pos + 4; return nil
    else
      local num = s:match("^-?%d+%.?%d*[eE]?[-+]?%d*", pos)
      if not num or num == "" then err("unexpected character '" .. c .. "'") end
      pos = pos + #num
      return math.tointeger(tonumber(num)) or tonumber(num)
    end
  end
  local v = value()
  ws()
  if pos <= #s then err("trailing garbage") end
  return v
end

local doc = {
  name = "rld", version = { 0, 1, 0 }, linkers = { "bfd", "gold", "lld", "mold" },
  ratio = 1.25, nested = { deep = { deeper = { "x\ty", 'q"uote', "nl\n" } } },
  flags = { fast = true, done = false }, empty = {},
}
local text = json.encode(doc)
print(text)
local back = json.decode(text)
print(json.encode(back) == text, back.nested.deep.deeper[2], back.version[2], back.ratio)
print(json.encode(json.decode('  [1, -2.5e3, "\\u00e9\\n", {"a": [true, false, null]}, []] ')))
for _, bad in ipairs({ "[1, 2", '{"a" 1}', "[1] x", "@", '"open' }) do
  print(pcall(json.decode, bad))
end

-- Expression evaluator with precedence, unary minus, ^ (right assoc), vars.
local function evaluate(src, env)
  local toks, i = {}, 1
  local p = 1
  while p <= #src do
    local c = src:sub(p, p)
    if c:match("%s") then p = p + 1
    elseif c:match("[%d.]") then
      local n = src:match("^%d*%.?%d+", p); toks[#toks + 1] = { "num", tonumber(n) }; p = p + #n
    elseif c:match("%a") then
      local id = src:match("^%a%w*", p); toks[#toks + 1] = { "id", id }; p = p + #id
    else toks[#toks + 1] = { "op", c }; p = p + 1 end
  end
  local function peek() return toks[i] end
  local function take() i = i + 1; return toks[i - 1] end
  local expr
  local function atom()
    local t = take()
    if not t then error("unexpected end", 0) end
    if t[1] == "num" then return t[2] end
    if t[1] == "id" then
      if peek() and peek()[2] == "(" then
        take()
        local a = expr()
        take()
        return math[t[2]](a)
      end
      local v = env[t[2]]
      if v == nil then error("unknown variable " .. t[2], 0) end
      return v
    end
    if t[2] == "(" then local v = expr(); take(); return v end
    if t[2] == "-" then return -atom() end
    error("unexpected " .. t[2], 0)
  end
  local function power()
    local b = atom()
    if peek() and peek()[2] == "^" then take(); return b ^ power() end
    return b
  end
  local function term()
    local v = power()
    while peek() and (peek()[2] == "*" or peek()[2] == "/" or peek()[2] == "%") do
      local op = take()[2]
      local r = power()
      if op == "*" then v = v * r elseif op == "/" then v = v / r else v = v % r end
    end
    return v
  end
  function expr()
    local v = term()
    while peek() and (peek()[2] == "+" or peek()[2] == "-") do
      local op = take()[2]
      local r = term()
      if op == "+" then v = v + r else v = v - r end
    end
    return v
  end
  local v = expr()
  if i <= #toks then error("trailing tokens", 0) end
  return v
end
local env = { x = 3, y = 4, big = 1e6 }
for _, e in ipairs({ "1 + 2 * 3", "(1 + 2) * 3", "2 ^ 3 ^ 2", "-x ^ 2", "sqrt(x*x + y*y)",
  "big / 7 % 10", "floor(10 / 3) + 0.5", "1 +", "z * 2", "4 4" }) do
  local ok, v = pcall(evaluate, e, env)
  print(string.format("%-22s %s %s", e, ok and "=" or "!", tostring(v)))
end

-- Word frequency over generated text.
local vocab = { "lorem", "ipsum", "dolor", "sit", "amet", "linker", "symbol", "section", "relocation" }
local words, seed = {}, 7
for i = 1, 20000 do
  seed = (seed * 48271) % 2147483647
  words[i] = vocab[seed % #vocab + 1]
end
local freq = {}
for _, w in ipairs(words) do freq[w] = (freq[w] or 0) + 1 end
local list = {}
for w, n in pairs(freq) do list[#list + 1] = { w, n } end
table.sort(list, function(a, b) if a[2] ~= b[2] then return a[2] > b[2] end return a[1] < b[1] end)
for _, e in ipairs(list) do print(string.format("%-10s %5d", e[1], e[2])) end
print(host.adler32(table.concat(words, " ")))
