-- walk: runs walk.steps steps; counts its walks in ctx.memory, so that a
-- test sees an agent keep its memory across a save.
local bt = require("bt")

bt.action("walk", {
  params = { ["walk.steps"] = "how many steps the walk takes (default 3)" },
  start = function(ctx, params)
    ctx.state.left = params:number("walk.steps", 3)
    ctx.memory.walks = (ctx.memory.walks or 0) + 1
  end,
  run = function(ctx, params)
    ctx.state.left = ctx.state.left - 1
    if ctx.state.left > 0 then
      return bt.RUNNING
    end
    return bt.SUCCESS
  end,
})

bt.scorer("eager", function(ctx, params) return 2 end)
