-- wrk script: POST /plants with a valid bearer token and a unique id per request.
-- Arguments after `--`: <first id> <token> <ascending|random>.
-- Ids stay below 2^53: LuaJIT numbers are doubles.

local next_id = 1
local token = ""
local order = "ascending"

function init(args)
  next_id = tonumber(args[1])
  token = args[2]
  order = args[3] or "ascending"
  wrk.method = "POST"
  wrk.path = "/plants"
  wrk.headers["Content-Type"] = "application/json"
  wrk.headers["Authorization"] = "Bearer " .. token
  math.randomseed(next_id)
end

function request()
  local id
  if order == "random" then
    id = math.random(1, 2 ^ 52)
  else
    id = next_id
    next_id = next_id + 1
  end
  return wrk.format(nil, nil, nil, string.format('{"id":%.0f,"name":"Monstera","tag":"tropical"}', id))
end

function done(summary, latency, requests)
  local errors = summary.errors
  io.write(string.format(
    'BENCH_RESULT {"requests":%d,"durationMicros":%d,"p50Micros":%d,"p99Micros":%d,"non2xx":%d,"socketErrors":%d}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), errors.status,
    errors.connect + errors.read + errors.write + errors.timeout))
end
