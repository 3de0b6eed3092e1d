-- string.format, gsub, patterns, byte/char, rep, utf8.
print(string.format("%d|%5d|%-5d|%05d", 42, 42, 42, 42))
print(string.format("%x|%X|%#x|%o", 255, 255, 255, 8))
print(string.format("%.3f|%10.2f|%-10.1f|%e|%g|%g", math.pi, -2.5, 1/3, 12345.678, 1e20, 0.1))
print(string.format("%q", 'a "quoted"\nline\0end'))
print(string.format("%q|%q", 1/0, math.mininteger))
print(string.format("%s|%10s|%-10s|%.2s", "abc", "right", "left", "truncate"))
print(string.format("%c%c%c", 76, 117, 97))
print(string.format("%a", 1.0))
print(("x"):rep(5), ("ab"):rep(3, ","), ("z"):rep(0) == "")

local s = "The quick brown fox jumps over the lazy dog"
print(s:len(), #s, s:upper(), s:lower())
print(s:sub(5, 9), s:sub(-3), s:sub(-8, -5), s:reverse())
print(s:find("fox"))
print(s:find("o", 20))
print(s:find("%s(%a+)%s"))
print(s:find(".", 1, true))
print(s:match("(%a+) (%a+)$"), s:match("q(%a*)"), s:match("%d") == nil)

local words = {}
for w in s:gmatch("%a+") do words[#words + 1] = w end
print(#words, table.concat(words, ","))

print(s:gsub("o", "0"))
print(s:gsub("%w+", string.upper, 3))
print(s:gsub("(%w+) (%w+)", "%2 %1"))
print(("hello world"):gsub("o", { o = "[O]" }))
print(("$name is $age"):gsub("%$(%w+)", { name = "Lua", age = 31 }))
print(("abc"):gsub("", "-"))
print(("  trim me  "):match("^%s*(.-)%s*$") .. "|")
print(("key = value"):match("^(%w+)%s*=%s*(%w+)$"))
print(("[[nested]] [x]"):gsub("%b[]", "<>"))
print(("THE (quick) fox"):find("%f[%a]%a+%f[%A]"))
print(("2024-01-15"):match("(%d+)-(%d+)-(%d+)"))
print(string.char(0x4c, 0x75, 0x61), string.byte("ABC", 1, -1))

-- CSV-ish parsing with captures and positions
local line = 'alpha,"beta, gamma",,delta'
local fields, pos = {}, 1
while pos <= #line + 1 do
  local c = line:sub(pos, pos)
  if c == '"' then
    local q = line:find('"', pos + 1, true)
    fields[#fields + 1] = line:sub(pos + 1, q - 1)
    pos = q + 2
  else
    local e = line:find(",", pos, true) or (#line + 1)
    fields[#fields + 1] = line:sub(pos, e - 1)
    pos = e + 1
  end
end
for i, f in ipairs(fields) do print(i, "[" .. f .. "]") end

-- utf8 library
local u = "héllo wörld ✓"
print(#u, utf8.len(u), utf8.char(72, 228, 8364, 128512))
for p, c in utf8.codes("aé✓") do print(p, c) end
print(utf8.codepoint(u, 1, 3), utf8.offset(u, 3))

-- string.pack / unpack
local packed = string.pack("<i4 >i2 z s1 d", -2, 513, "zero", "len", 2.5)
print(#packed, (packed:gsub(".", function(ch) return string.format("%02x", ch:byte()) end)))
print(string.unpack("<i4 >i2 z s1 d", packed))
print(string.packsize("i4 i8 d"), host.adler32("Wikipedia"), host.name)

-- building a long string and hashing it in C
local parts = {}
for i = 1, 1000 do parts[i] = string.format("%04d:%s", i, ("x"):rep(i % 7)) end
local big = table.concat(parts, ";")
print(#big, host.adler32(big), big:sub(1, 30), big:sub(-20))
