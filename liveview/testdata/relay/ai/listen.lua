-- listen: runs for ever; a Ping makes it send Pong to the next post.
local bt = require("bt")

bt.action("listen", {
  run = function(ctx) return bt.RUNNING end,
  on = {
    Ping = function(ctx, params, data)
      local n = tonumber(string.sub(ctx.id, 6)) % 3 + 1
      ctx:log("ping: pong to post-" .. n)
      ctx:send("post-" .. n, "Pong", {from = ctx.id})
    end,
    Pong = function(ctx, params, data)
      ctx:log("pong from " .. data.from)
    end,
  },
})
