-- Coroutines: generators, pipelines, status, wrap, yield across pcall, close.
local function gen(n)
  return coroutine.wrap(function()
    for i = 1, n do coroutine.yield(i) end
  end)
end
local acc = {}
for v in gen(6) do acc[#acc + 1] = v end
print(table.concat(acc, " "))

local co = coroutine.create(function(a, b)
  print("start", a, b)
  local c = coroutine.yield(a + b)
  print("got", c)
  local d, e = coroutine.yield(c * 2)
  print("got", d, e)
  return "done", a + b + c + d + e
end)
print(coroutine.status(co))
print(coroutine.resume(co, 1, 2))
print(coroutine.status(co))
print(coroutine.resume(co, 10))
print(coroutine.resume(co, 100, 1000))
print(coroutine.status(co))
print(coroutine.resume(co))

-- Producer / filter / consumer pipeline.
local function producer(items)
  return coroutine.create(function()
    for _, x in ipairs(items) do coroutine.yield(x) end
  end)
end
local function filter(src, pred)
  return coroutine.create(function()
    while true do
      local ok, x = coroutine.resume(src)
      if not ok or x == nil then return end
      if pred(x) then coroutine.yield(x) end
    end
  end)
end
local function consume(src)
  local got = {}
  while true do
    local _, x = coroutine.resume(src)
    if x == nil then break end
    got[#got + 1] = x
  end
  return got
end
local nums = {}
for i = 1, 30 do nums[i] = i end
print(table.concat(consume(filter(producer(nums), function(x) return x % 3 == 0 end)), ","))

-- Errors inside coroutines.
local bad = coroutine.create(function() coroutine.yield(1); error("boom") end)
print(coroutine.resume(bad))
print(coroutine.resume(bad))
print(coroutine.status(bad), coroutine.resume(bad))
local tbl_err = coroutine.wrap(function() error({ code = 7 }) end)
local ok, e = pcall(tbl_err)
print(ok, type(e), e.code)

-- Yield across pcall (allowed in 5.4), isyieldable, running.
local y = coroutine.create(function()
  print("yieldable", coroutine.isyieldable())
  local ok2, v = pcall(function()
    local r = coroutine.yield("from inside pcall")
    if r == "raise" then error("raised after resume", 0) end
    return r
  end)
  coroutine.yield(tostring(ok2) .. ":" .. tostring(v))
  return "end"
end)
print(coroutine.resume(y))
print(coroutine.resume(y, "raise"))
print(coroutine.resume(y))
print(coroutine.isyieldable(), select(2, coroutine.running()))

-- coroutine.close with a pending to-be-closed variable.
local cl = coroutine.create(function()
  local r <close> = setmetatable({}, { __close = function() print("closing resource") end })
  coroutine.yield("suspended with resource")
end)
print(coroutine.resume(cl))
print(coroutine.close(cl), coroutine.status(cl))

-- Permutations generator (classic PIL example).
local function permgen(a, n)
  n = n or #a
  if n <= 1 then coroutine.yield(a) else
    for i = 1, n do
      a[n], a[i] = a[i], a[n]
      permgen(a, n - 1)
      a[n], a[i] = a[i], a[n]
    end
  end
end
local count, firsts = 0, {}
for p in coroutine.wrap(function() permgen({ "a", "b", "c", "d" }) end) do
  count = count + 1
  if count <= 5 then firsts[#firsts + 1] = table.concat(p) end
end
print(count, table.concat(firsts, " "))

-- Many coroutines alive at once (round-robin scheduler).
local tasks = {}
for id = 1, 5 do
  tasks[id] = coroutine.create(function()
    for step = 1, id do coroutine.yield(id * 10 + step) end
  end)
end
local trace = {}
local alive = true
while alive do
  alive = false
  for id = 1, #tasks do
    local t = tasks[id]
    if coroutine.status(t) ~= "dead" then
      local _, v = coroutine.resume(t)
      if v then trace[#trace + 1] = v; alive = true end
    end
  end
end
print(#trace, table.concat(trace, " "))
