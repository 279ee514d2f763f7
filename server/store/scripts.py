"""The Lua scripts of the Redis store: each runs atomically in Redis, so a multi-key write is
all or nothing, and a check and the write it guards cannot be split by another node.

The keys of one script share one hash tag (see the key layout in :mod:`server.store.redis.base`).
"""

# KEYS: account hash, token index, then the name indexes (the case-folded name and the
# name's look-alike keys). ARGV: id, then hash field/value pairs. All or nothing, so two
# nodes cannot both register one name, nor two names that look alike.
ADD_ACCOUNT = """
for i = 3, #KEYS do
  if redis.call('EXISTS', KEYS[i]) == 1 then return 0 end
end
for i = 3, #KEYS do redis.call('SET', KEYS[i], ARGV[1]) end
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
redis.call('SET', KEYS[2], ARGV[1])
return 1
"""

# KEYS: record, recent zset, sequence. ARGV: id, data, keep, record key prefix.
SAVE_RECORD = """
redis.call('SET', KEYS[1], ARGV[2])
if not redis.call('ZSCORE', KEYS[2], ARGV[1]) then
  redis.call('ZADD', KEYS[2], redis.call('INCR', KEYS[3]), ARGV[1])
end
local extra = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[3])
if extra > 0 then
  for _, id in ipairs(redis.call('ZRANGE', KEYS[2], 0, extra - 1)) do
    redis.call('DEL', ARGV[4] .. id)
  end
  redis.call('ZREMRANGEBYRANK', KEYS[2], 0, extra - 1)
end
return extra
"""

# KEYS: lease. ARGV: node, ttl ms. Take it if free or already ours.
LEASE_TAKE = """
local owner = redis.call('GET', KEYS[1])
if owner and owner ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
"""

# KEYS: lease. ARGV: node, ttl ms (ttl 0: release).
LEASE_RENEW = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if tonumber(ARGV[2]) == 0 then redis.call('DEL', KEYS[1]) else redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 1
"""

# KEYS: applied mark, rating hash, then one board per put, then one history list per entry.
# ARGV: mark ttl (s), number of puts, number of ratings, number of history entries, entries kept
#       per history; then per put: member, score, mode, ttl ('' for none); then per rating:
#       player id, packed rating before ('' for none), packed rating after; then per history
#       entry: the packed entry (put first in its list, which keeps the newest ones).
# Returns -1 (applied before: nothing done), -2 (a rating moved: nothing done), or per put 1/0:
# whether it changed its board.
APPLY_RACE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return -1 end
local n, r, h, keep = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local ratings = 6 + 4 * n
for i = ratings, ratings + 3 * (r - 1), 3 do
  if (redis.call('HGET', KEYS[2], ARGV[i]) or '') ~= ARGV[i + 1] then return -2 end
end
for i = ratings, ratings + 3 * (r - 1), 3 do
  redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 2])
end
local changed = {}
for j = 1, n do
  local a = 6 + 4 * (j - 1)
  local key, member, score, mode, ttl = KEYS[2 + j], ARGV[a], ARGV[a + 1], ARGV[a + 2], ARGV[a + 3]
  local c
  if mode == 'add' then
    local old = redis.call('ZSCORE', key, member)
    local new = redis.call('ZINCRBY', key, score, member)
    c = (not old) or tonumber(new) ~= tonumber(old)
  elseif mode == 'max' then
    c = redis.call('ZADD', key, 'GT', 'CH', score, member) == 1
  elseif mode == 'min' then
    c = redis.call('ZADD', key, 'LT', 'CH', score, member) == 1
  else
    c = redis.call('ZADD', key, 'CH', score, member) == 1
  end
  if ttl ~= '' then redis.call('EXPIRE', key, ttl) end
  changed[j] = c and 1 or 0
end
local entries = ratings + 3 * r
for k = 1, h do
  local key = KEYS[2 + n + k]
  redis.call('LPUSH', key, ARGV[entries + k - 1])
  redis.call('LTRIM', key, 0, keep - 1)
end
redis.call('SET', KEYS[1], '1', 'EX', ARGV[1])
return changed
"""

# KEYS: the race's log, its lease. ARGV: the appending node ('' when alone), the packed entry.
# A node appends unless another node holds the lease: an adopter takes the lease before it
# reads the log, so every entry appended is either in what it read or refused. Returns the
# holder when refused, else nothing.
LOG_APPEND = """
local holder = redis.call('GET', KEYS[2])
if ARGV[1] ~= '' and holder and holder ~= ARGV[1] then return holder end
redis.call('XADD', KEYS[1], '*', 'e', ARGV[2])
return false
"""

# LOG_APPEND with the index of live races too (KEYS[3], ARGV[3]: the race id), in one round trip:
# for one Redis, where every key may meet in one script (a cluster keeps them in other slots).
LOG_APPEND_INDEXED = """
redis.call('SADD', KEYS[3], ARGV[3])
local holder = redis.call('GET', KEYS[2])
if ARGV[1] ~= '' and holder and holder ~= ARGV[1] then return holder end
redis.call('XADD', KEYS[1], '*', 'e', ARGV[2])
return false
"""

# LOG_APPEND_INDEXED for a batch of appends in one call, for one Redis: KEYS[1] the index of live
# races, then each append's log and lease; ARGV each append's node, packed entry and race id, in
# the same order. Each append is refused, made or failed on its own, as its own call of
# LOG_APPEND_INDEXED would be (redis.pcall: a command's error is that append's answer, and the
# appends after it go on). Returns one value per append, in order: '' when appended, the lease's
# holder when refused, or the error.
LOG_APPEND_MANY = """
local function failed(r) return type(r) == 'table' and r.err ~= nil end
local out = {}
for i = 1, #ARGV / 3 do
  local owner, entry, race = ARGV[3 * i - 2], ARGV[3 * i - 1], ARGV[3 * i]
  local result = redis.pcall('SADD', KEYS[1], race)
  if not failed(result) then
    result = redis.pcall('GET', KEYS[2 * i + 1])
    if not failed(result) then
      if owner ~= '' and result and result ~= owner then
        result = result
      else
        result = redis.pcall('XADD', KEYS[2 * i], '*', 'e', entry)
        if not failed(result) then result = '' end
      end
    end
  end
  out[i] = result
end
return out
"""

# Matchmaking. KEYS: the queue's people (zset: player id -> ms queued, Redis's clock, so the
# nodes' clocks never matter), its house players (the same), the players' data (hash), the
# names of queues with someone waiting (set). Every key of every queue shares the {mm} slot.

# ARGV: player id, packed player, 1 for a house player, queue name. Returns how many wait.
QUEUE_PUT = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZADD', ARGV[3] == '1' and KEYS[2] or KEYS[1], now, ARGV[1])
redis.call('HSET', KEYS[3], ARGV[1], ARGV[2])
redis.call('SADD', KEYS[4], ARGV[4])
return redis.call('ZCARD', KEYS[1]) + redis.call('ZCARD', KEYS[2])
"""

# ARGV: player id. Returns 1 if the player was waiting.
QUEUE_TAKE = """
redis.call('HDEL', KEYS[3], ARGV[1])
return redis.call('ZREM', KEYS[1], ARGV[1]) + redis.call('ZREM', KEYS[2], ARGV[1])
"""

# ARGV: seats, wait (ms), queue name. Returns the group's packed players (people first), or
# an empty list when no group is due yet.
QUEUE_MATCH = """
local seats = tonumber(ARGV[1])
local people = redis.call('ZRANGE', KEYS[1], 0, seats - 1, 'WITHSCORES')
local np = #people / 2
if np == 0 then
  if redis.call('ZCARD', KEYS[2]) == 0 then redis.call('SREM', KEYS[4], ARGV[3]) end
  return {}
end
-- house players fill the seats people left free; none when people fill them all (a ZRANGE
-- ending at -1 would take every house player waiting)
local house = {}
if seats > np then house = redis.call('ZRANGE', KEYS[2], 0, seats - np - 1) end
local n = np + #house
if n < 2 then return {} end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if n < seats and now < tonumber(people[2]) + tonumber(ARGV[2]) then return {} end
local ids = {}
for i = 1, #people, 2 do ids[#ids + 1] = people[i] end
for _, id in ipairs(house) do ids[#ids + 1] = id end
local group = {}
for _, id in ipairs(ids) do
  group[#group + 1] = redis.call('HGET', KEYS[3], id)
  redis.call('HDEL', KEYS[3], id)
  redis.call('ZREM', KEYS[1], id)
  redis.call('ZREM', KEYS[2], id)
end
return group
"""

# KEYS: a daily value (msgpack of a map). ARGV: a race id. Deletes the value only while it is the
# claim of that race (its "race" field): an attempt given back frees the claim, never a newer one.
DAILY_RELEASE = """
local kept = redis.call('GET', KEYS[1])
if kept and cmsgpack.unpack(kept)['race'] == ARGV[1] then
  redis.call('DEL', KEYS[1])
  return 1
end
return 0
"""
