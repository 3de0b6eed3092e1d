-- Integer/float arithmetic, math library, conversions, bitwise ops.
print(7 // 2, -7 // 2, 7 % 3, -7 % 3, 7 % -3, 7.5 // 2, -7.5 % 2)
print(2^10, 10 / 4, 3 / 0, -3 / 0, 0/0 ~= 0/0, math.huge)
print(math.maxinteger, math.mininteger, math.maxinteger + 1 == math.mininteger)
print(1e15, 1e16, 123456789012345678, 0x7fffffffffffffff, 0xff, 1e-5, 2^53 + 1)
print(3 | 5, 3 & 5, 3 ~ 5, ~0, 1 << 62, 1 << 63, 1 << 64, -1 >> 1, 0xF0 >> 4)
print(math.type(1), math.type(1.0), math.type("1"), math.tointeger(3.0), math.tointeger(3.5))
print(1 == 1.0, math.ult(1, -1), 10 // 3.0, 2^-1, 5 // 0.0, -5 // 0.0)
print(tonumber("0x1p4"), tonumber("  12  "), tonumber("1e2"), tonumber("10", 2), tonumber("zz", 36), tonumber("8", 8))
print(tostring(1/3), string.format("%.17g", 0.1), 0.1 + 0.2 == 0.3, 100000000000000)
print(math.floor(3.7), math.ceil(3.2), math.floor(-3.7), math.ceil(-3.2), math.abs(-4), math.abs(math.mininteger))
print(math.max(3, 9, 1), math.min(3, 9, 1), math.max(1.5, 2), math.fmod(7, 3), math.fmod(-7, 3), math.fmod(7, -3.5))
print(math.modf(3.7), math.modf(-3.7), math.modf(5))

local function r(x) return string.format("%.10f", x) end
print(r(math.sqrt(2)), r(math.exp(1)), r(math.log(100, 10)), r(math.log(8, 2)), r(math.log(2.718281828459045)))
print(r(math.sin(math.pi / 6)), r(math.cos(math.pi / 3)), r(math.tan(math.pi / 4)))
print(r(math.asin(1)), r(math.acos(0)), r(math.atan(1, 1)), r(math.atan(-1, -1)))
print(r(math.pi), r(math.rad(180)), r(math.deg(math.pi)))

-- Deterministic PRNG after seeding (xoshiro256**).
math.randomseed(42)
local rs = {}
for i = 1, 8 do rs[i] = math.random(1, 1000) end
print(table.concat(rs, " "))
math.randomseed(42)
print(math.random(1, 1000) == rs[1], math.random(0) ~= nil)
local fl = math.random()
print(fl >= 0 and fl < 1)

-- Number crunching: primes, gcd, factorial, float sums, collatz.
local function sieve(n)
  local is = {}
  for i = 2, n do is[i] = true end
  for i = 2, math.floor(math.sqrt(n)) do
    if is[i] then for j = i * i, n, i do is[j] = false end end
  end
  local ps = {}
  for i = 2, n do if is[i] then ps[#ps + 1] = i end end
  return ps
end
local ps = sieve(100000)
print(#ps, ps[#ps], ps[1000])
local function gcd(a, b) while b ~= 0 do a, b = b, a % b end return a end
print(gcd(1071, 462), gcd(2^40 // 1, 6^20 // 1))
local f = 1
for i = 1, 20 do f = f * i end
print(f, f * 21, 2^64, math.tointeger(2^62))
local s = 0.0
for i = 1, 100000 do s = s + 1 / i end
print(string.format("%.12f", s))
local longest, arg = 0, 0
for n = 1, 30000 do
  local x, steps = n, 0
  while x ~= 1 do
    if x % 2 == 0 then x = x // 2 else x = 3 * x + 1 end
    steps = steps + 1
  end
  if steps > longest then longest, arg = steps, n end
end
print(longest, arg)

-- Mandelbrot in ASCII (float-heavy inner loop).
for y = -1.2, 1.2, 0.3 do
  local row = {}
  for x = -2.0, 0.6, 0.1 do
    local zr, zi, it = 0.0, 0.0, 0
    while zr * zr + zi * zi < 4 and it < 50 do
      zr, zi = zr * zr - zi * zi + x, 2 * zr * zi + y
      it = it + 1
    end
    row[#row + 1] = it == 50 and "#" or (it > 8 and "+" or ".")
  end
  print(table.concat(row))
end

-- Matrix multiply.
local function matmul(a, b)
  local n, m, p = #a, #b, #b[1]
  local c = {}
  for i = 1, n do
    c[i] = {}
    for j = 1, p do
      local sum = 0
      for k = 1, m do sum = sum + a[i][k] * b[k][j] end
      c[i][j] = sum
    end
  end
  return c
end
local A = { { 1, 2, 3 }, { 4, 5, 6 } }
local B = { { 7, 8 }, { 9, 10 }, { 11, 12 } }
local C = matmul(A, B)
print(C[1][1], C[1][2], C[2][1], C[2][2])
print(os.date("!%Y-%m-%d %H:%M:%S", 86400 * 365), os.time({ year = 2000, month = 1, day = 1, hour = 12 }) ~= nil)
