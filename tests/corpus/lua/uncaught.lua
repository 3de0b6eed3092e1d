-- An error that nothing catches: the driver prints the message and a
-- traceback to stderr and exits with status 1.
local function validate(config)
  if config.port > 65535 then
    error({ code = "EPORT" })
  end
  if not config.name then
    error("config.name is missing")
  end
end
print("validating")
local ok, err = pcall(validate, { port = 70000 })
print(ok, type(err), err.code)
io.stdout:write("about to fail\n")
validate({ port = 80 })
print("not reached")
