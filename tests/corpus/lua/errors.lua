-- pcall/xpcall/error with strings, levels, tables and metatables; built-in
-- error messages.
print(pcall(error, "plain"))
print(pcall(error, "no position", 0))
print(pcall(function() error("level 1") end))
local function check(x) if type(x) ~= "number" then error("expected number", 2) end return x end
print(pcall(function() return check("str") end))
print(pcall(error))
print(pcall(error, nil))
print(select("#", pcall(error, nil)))

-- Error objects that are tables (with fields and a __tostring).
local MyError = {}
MyError.__index = MyError
MyError.__tostring = function(e) return "MyError(" .. e.code .. "): " .. e.msg end
local function fail(code, msg) error(setmetatable({ code = code, msg = msg }, MyError)) end
local ok, err = pcall(fail, 404, "not found")
print(ok, type(err), err.code, err.msg, tostring(err), getmetatable(err) == MyError)

-- Rethrowing, nested pcall, finally-like cleanup.
local steps = {}
local function with_cleanup(f)
  local ok2, e = pcall(f)
  steps[#steps + 1] = "cleanup"
  if not ok2 then error(e, 0) end
  return e
end
local ok1, e1 = pcall(with_cleanup, function() steps[#steps + 1] = "body"; error({ tag = "inner" }) end)
print(ok1, type(e1), e1.tag)
print(table.concat(steps, ","))
local ok3, e3 = pcall(with_cleanup, function() return "body result" end)
print(ok3, e3, table.concat(steps, ","))

-- xpcall with a message handler and arguments.
print(xpcall(function(a, b) return a + b end, debug.traceback, 2, 3))
print(xpcall(function() error("handled") end, function(m) return "handler saw: " .. m end))
print(xpcall(function() local t = nil; return t.x end, function(m) return (m:gsub("^.-:%d+: ", "")) end))

-- Built-in runtime error messages.
local function msg(f, ...) local _, m = pcall(f, ...) return m end
print(msg(function() return 1 + {} end))
print(msg(function() return #nil end))
print(msg(function() local s = "x"; return s < 1 end))
print(msg(function() local t = {}; t.x.y = 1 end))
print(msg(function() undefined_global() end))
print(msg(function() return ("x"):bad() end))
print(msg(function() return 1 // 0 end))
print(msg(function() return math.tointeger(2^63) or error("not an integer") end))
print(msg(string.rep))
print(msg(string.format, "%d", 1.5))
print(msg(setmetatable, 1, {}))
print(msg(function() return {} .. "" end))
print(msg(function() for i = 1, 10, 0 do end end))
print(msg(function() local a <const> = 1; return a + nil end))
print(msg(table.insert, {}, 1, 2, 3))
print(msg(load, "x = = 1"))
print(load("x = = 1"))
print(load("return 1 +", "=chunk"))
print(msg(select, 0))
print(msg(string.char, 256))
print(msg(coroutine.resume, coroutine.running()))

-- tostring(nil), error with number, assert.
print(pcall(error, 42))
print(pcall(assert, false))
print(pcall(assert, nil, "assertion message"))
print(pcall(assert, 1 == 1, "unused"))
print(select("#", assert(1, 2, 3)), assert("v", "m"))

-- Error inside a metamethod and inside a sort comparator.
local angry = setmetatable({}, { __index = function(_, k) error("no field " .. k) end })
print(pcall(function() return angry.missing end))
print(pcall(table.sort, { 3, 1, 2 }, function() error("cmp failed") end))
print(pcall(table.sort, { 1, "x", 2 }))

-- Stack overflow is caught.
local function runaway(n) return 1 + runaway(n + 1) end
local so_ok, so_msg = pcall(runaway, 1)
print(so_ok, (so_msg:match("stack overflow")))

-- Error levels pointing at different frames.
local function lvl(n) error("at level " .. n, n) end
local function caller(n) lvl(n) end
for n = 1, 3 do print(pcall(caller, n)) end

-- debug.traceback output shape.
local function inner() return debug.traceback("tb", 1) end
local function outer() return inner() end
print(outer())
