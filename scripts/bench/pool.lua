-- Sends each request of a prepared pool once (codes, refresh tokens, temp login ids: all single
-- use), spread over wrk's threads, then stops the thread; with BENCH_CYCLE=1 it goes round the
-- pool again and again until wrk's duration ends (access tokens of many sessions). Configured through environment
-- variables set by bench.py: BENCH_POOL (file, one value per line), BENCH_METHOD, BENCH_PATH
-- (with {} for the value, or empty), BENCH_BODY (with {} for the value), BENCH_HEADERS
-- ("Name: value" lines separated by "|", {} for the value). A line "A B" gives the path (and
-- headers) A and the body B: a temp login URI and the user who signs in there.
-- A redirect whose Location carries `error=` (a sign-in refused, e.g. by the login throttle) is
-- counted: done() prints "Error redirects: N", which load.py adds to the errors.
local values = {}
for line in io.lines(os.getenv("BENCH_POOL")) do values[#values + 1] = line end
local method = os.getenv("BENCH_METHOD") or "POST"
local path_template = os.getenv("BENCH_PATH") or "/"
local body_template = os.getenv("BENCH_BODY") or ""
local headers = {}
for pair in string.gmatch(os.getenv("BENCH_HEADERS") or "", "[^|]+") do
  local name, value = string.match(pair, "^%s*([^:]+):%s*(.*)$")
  if name then headers[name] = value end
end

local counter = 1
local threads = {}
function setup(thread)
  thread:set("id", counter)
  counter = counter + 1
  threads[#threads + 1] = thread
end

error_redirects = 0
function response(status, headers, body)
  local location = headers["Location"] or headers["location"]
  if status >= 300 and status < 400 and location and string.find(location, "error=", 1, true) then
    error_redirects = error_redirects + 1
  end
end

function done(summary, latency, requests)
  local total = 0
  for _, thread in ipairs(threads) do total = total + (thread:get("error_redirects") or 0) end
  io.write("Error redirects: " .. total .. "\n")
end

-- wrk reports requests / the full -d duration even when the pool ran out early, so each thread
-- writes the wall-clock time it started and the time its share ran out (BENCH_CLOCKS prefix);
-- bench.py divides by that span instead.
local function note_time(kind)
  local prefix = os.getenv("BENCH_CLOCKS")
  if not prefix then return end
  local clock = io.popen("date +%s.%N")
  local now = clock:read("*l")
  clock:close()
  local file = io.open(prefix .. "-" .. kind .. "-" .. id, "w")
  file:write(now)
  file:close()
end

-- Thread k of n takes values k, k + n, k + 2n, ...; when its share is used up it stops (the
-- harmless request it returns then is never measured: the thread's loop ends first).
local next_index, step, finished
local cycle = os.getenv("BENCH_CYCLE") == "1"
function init(args)
  step = tonumber(os.getenv("BENCH_THREADS") or "1")
  next_index = id
  note_time("start")
end

function request()
  local value = values[next_index]
  if value == nil and cycle then
    next_index = id
    value = values[next_index]
  end
  if value == nil then
    if not finished then
      finished = true
      note_time("end")
    end
    wrk.thread:stop()
    return wrk.format("GET", "/healthz")
  end
  next_index = next_index + step
  local first, second = string.match(value, "^(%S+) (%S+)$")
  first = first or value
  second = second or value
  local path = string.gsub(path_template, "{}", function() return first end)
  local body = string.gsub(body_template, "{}", function() return second end)
  local filled = {}
  for name, template in pairs(headers) do
    filled[name] = string.gsub(template, "{}", function() return first end)
  end
  return wrk.format(method, path, filled, body)
end
