-- Run-time workload for bench/lto.sh: table, string, closure and arithmetic work in the
-- interpreter loop (deterministic; prints a checksum).
local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end

local sum = 0
for round = 1, 3 do
  local t = {}
  for i = 1, 200000 do t[i] = (i * 7919) % 100003 end
  table.sort(t)
  for i = 1, #t, 97 do sum = (sum + t[i]) % 1000000007 end

  local words = {}
  for i = 1, 60000 do words[#words + 1] = string.format("w%05d", (i * 31) % 50000) end
  local text = table.concat(words, " ")
  local counts = {}
  for w in text:gmatch("%S+") do counts[w] = (counts[w] or 0) + 1 end
  local distinct = 0
  for _ in pairs(counts) do distinct = distinct + 1 end
  sum = (sum + distinct + #text:gsub("w0", "x")) % 1000000007

  local acc = 0
  local add = function(x) acc = acc + x end
  for i = 1, 300000 do add(i % 13) end
  sum = (sum + acc + fib(24)) % 1000000007
end
print(sum)
