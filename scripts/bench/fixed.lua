-- One fixed request, configured like pool.lua: BENCH_METHOD, BENCH_PATH, BENCH_BODY, BENCH_HEADERS.
local headers = {}
for pair in string.gmatch(os.getenv("BENCH_HEADERS") or "", "[^|]+") do
  local name, value = string.match(pair, "^%s*([^:]+):%s*(.*)$")
  if name then headers[name] = value end
end
wrk.method = os.getenv("BENCH_METHOD") or "GET"
wrk.path = os.getenv("BENCH_PATH") or "/"
wrk.body = os.getenv("BENCH_BODY")
wrk.headers = headers
