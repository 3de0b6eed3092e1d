-- Closures, upvalues shared between closures, recursion, varargs.
local function counter(start)
  local n = start
  return function() n = n + 1; return n end, function() return n end
end
local inc, get = counter(10)
inc(); inc()
local inc2 = counter(100)
print(get(), inc(), inc2(), get())

-- Upvalues captured per loop iteration.
local fns = {}
for i = 1, 5 do fns[i] = function() return i * i end end
local out = {}
for i, f in ipairs(fns) do out[i] = f() end
print(table.concat(out, " "))

-- Shared upvalue across nested closures.
local function bank(balance)
  local history = {}
  local function record(kind, amount)
    history[#history + 1] = kind .. ":" .. amount
  end
  return {
    deposit = function(x) balance = balance + x; record("d", x) end,
    withdraw = function(x)
      if x > balance then return false, "insufficient funds" end
      balance = balance - x; record("w", x); return true
    end,
    balance = function() return balance end,
    history = function() return table.concat(history, ",") end,
  }
end
local acct = bank(50)
acct.deposit(25)
print(acct.withdraw(100))
print(acct.withdraw(30), acct.balance(), acct.history())

-- Memoized recursion.
local function memoize(f)
  local cache = {}
  return function(n)
    local v = cache[n]
    if v == nil then v = f(n); cache[n] = v end
    return v
  end
end
local fib
fib = memoize(function(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end)
print(fib(80), fib(90))

-- Y-combinator style and function composition.
local function compose(...)
  local fs = { ... }
  return function(x)
    for i = #fs, 1, -1 do x = fs[i](x) end
    return x
  end
end
local add1 = function(x) return x + 1 end
local dbl = function(x) return x * 2 end
print(compose(add1, dbl)(5), compose(dbl, add1)(5), compose()(7))

-- Varargs.
local function stats(...)
  local n = select("#", ...)
  local sum = 0
  for i = 1, n do sum = sum + (select(i, ...) or 0) end
  return n, sum, ...
end
print(stats(1, 2, nil, 4))
print((stats(5, 6)))

-- Calls from C back into Lua closures (host.fold in the driver).
local seen = {}
local total = host.fold(function(acc, x) seen[#seen + 1] = x; return acc + x end, 0, 1, 2, 3, 4, 5)
print(total, table.concat(seen, ","))
print(host.fold(function(acc, s) return acc .. s:upper() end, ">", "a", "b", "c"))

-- Deep recursion and tail calls.
local function depth(n) if n == 0 then return 0 end return 1 + depth(n - 1) end
local function loop(n, acc) if n == 0 then return acc end return loop(n - 1, acc + n) end
print(depth(10000), loop(1000000, 0))

-- Ackermann and mutual recursion.
local function ack(m, n)
  if m == 0 then return n + 1 end
  if n == 0 then return ack(m - 1, 1) end
  return ack(m - 1, ack(m, n - 1))
end
local is_even, is_odd
function is_even(n) if n == 0 then return true end return is_odd(n - 1) end
function is_odd(n) if n == 0 then return false end return is_even(n - 1) end
print(ack(2, 3), ack(3, 3), is_even(1000), is_odd(777))

-- Debug library: upvalue names and values.
local x, y = 1, 2
local function uses() return x + y end
local names = {}
for i = 1, 10 do
  local name, val = debug.getupvalue(uses, i)
  if not name then break end
  names[#names + 1] = name .. "=" .. tostring(val)
end
print(table.concat(names, " "))
debug.setupvalue(uses, 1, 40)
print(uses(), x)
