-- table.sort/concat/insert/remove/move/unpack, metatables.
local t = { 5, 3, 8, 1, 9, 2, 7, 4, 6, 0 }
table.sort(t)
print(table.concat(t, " "))
table.sort(t, function(a, b) return a > b end)
print(table.concat(t, " "))

local people = {
  { name = "Ada", age = 36 }, { name = "Grace", age = 85 },
  { name = "Alan", age = 41 }, { name = "Edsger", age = 72 },
  { name = "Barbara", age = 41 }, { name = "Donald", age = 86 },
}
table.sort(people, function(a, b)
  if a.age ~= b.age then return a.age < b.age end
  return a.name < b.name
end)
for i, p in ipairs(people) do print(i, p.name, p.age) end

local l = {}
for i = 1, 10 do table.insert(l, i * i) end
table.insert(l, 1, 0)
print(table.remove(l), table.remove(l, 1), #l, table.concat(l, ",", 2, 5))
print(table.concat(table.move(l, 1, 3, 1, {}), ","), select("#", table.unpack(l)))
print(table.unpack({ 1, 2, nil, 4 }, 1, 4))
print(table.pack(1, nil, 3).n, select(-1, "a", "b", "c"))

-- Sort a big pseudo-random array (deterministic LCG) and check it.
local seed, arr = 12345, {}
for i = 1, 5000 do
  seed = (seed * 1103515245 + 12345) % 2147483648
  arr[i] = seed % 100000
end
table.sort(arr)
local ok = true
for i = 2, #arr do if arr[i - 1] > arr[i] then ok = false end end
print("sorted", ok, arr[1], arr[2500], arr[5000])

-- Keys in sorted order (pairs order is not deterministic across runs).
local function sorted_keys(tab)
  local keys = {}
  for k in pairs(tab) do keys[#keys + 1] = k end
  table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
  return keys
end
local inventory = { apples = 3, pears = 0, kiwis = 12, [1] = "one", [2.5] = "float" }
for _, k in ipairs(sorted_keys(inventory)) do print(k, inventory[k]) end

-- Metatables: a vector type with arithmetic, comparison, tostring, index.
local Vec = {}
Vec.__index = Vec
local function vec(x, y) return setmetatable({ x = x, y = y }, Vec) end
Vec.__add = function(a, b) return vec(a.x + b.x, a.y + b.y) end
Vec.__sub = function(a, b) return vec(a.x - b.x, a.y - b.y) end
Vec.__mul = function(a, b)
  if type(a) == "number" then return vec(a * b.x, a * b.y) end
  if type(b) == "number" then return vec(a.x * b, a.y * b) end
  return a.x * b.x + a.y * b.y
end
Vec.__unm = function(a) return vec(-a.x, -a.y) end
Vec.__eq = function(a, b) return a.x == b.x and a.y == b.y end
Vec.__lt = function(a, b) return a:len() < b:len() end
Vec.__le = function(a, b) return a:len() <= b:len() end
Vec.__len = function() return 2 end
Vec.__tostring = function(a) return "(" .. a.x .. ", " .. a.y .. ")" end
Vec.__concat = function(a, b) return tostring(a) .. tostring(b) end
Vec.__call = function(a, k) return a[k] end
function Vec:len() return math.sqrt(self * self) end
local a, b = vec(3, 4), vec(1, 2)
print(tostring(a + b), tostring(a - b), a * b, tostring(2 * a), tostring(-b))
print(a == vec(3, 4), a ~= b, b < a, a <= b, #a, a:len(), a .. b, a("x"))

-- __index / __newindex functions, rawget/rawset, __pairs-free proxies.
local log = {}
local store = {}
local proxy = setmetatable({}, {
  __index = function(_, k) log[#log + 1] = "get " .. k; return store[k] end,
  __newindex = function(_, k, v) log[#log + 1] = "set " .. k; store[k] = v end,
})
proxy.a = 1
proxy.b = proxy.a + 1
print(proxy.a, proxy.b, rawget(proxy, "a"), table.concat(log, ";"))

-- Inheritance chain via __index tables.
local Animal = { sound = "..." }
Animal.__index = Animal
function Animal.new(name) return setmetatable({ name = name }, Animal) end
function Animal:speak() return self.name .. " says " .. self.sound end
local Dog = setmetatable({ sound = "woof" }, { __index = Animal })
Dog.__index = Dog
function Dog.new(name) return setmetatable(Animal.new(name), Dog) end
function Dog:fetch() return self.name .. " fetches" end
local d = Dog.new("Rex")
print(Animal.new("Generic"):speak(), d:speak(), d:fetch(), getmetatable(d) == Dog)

-- Weak tables and __gc / __close.
local weak = setmetatable({}, { __mode = "k" })
do weak[{}] = true end
collectgarbage(); collectgarbage()
local n = 0
for _ in pairs(weak) do n = n + 1 end
print("weak entries", n)
local finalized = {}
do
  local _ = setmetatable({}, { __gc = function() finalized[#finalized + 1] = "gc" end })
end
collectgarbage(); collectgarbage()
print("finalized", table.concat(finalized, ","))
do
  local res <close> = setmetatable({}, { __close = function() print("closed res") end })
  print("in scope")
end
