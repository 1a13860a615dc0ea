-- walk: runs walk.steps steps, moving ctx.agent.x; counts walks in memory.
local bt = require("bt")

bt.action("walk", {
  start = function(ctx, params)
    ctx.state.left = params:number("walk.steps", 3)
    ctx.memory.walks = (ctx.memory.walks or 0) + 1
  end,
  run = function(ctx, params)
    ctx.state.left = ctx.state.left - 1
    ctx.agent.x = ctx.agent.x + 1
    if ctx.state.left > 0 then
      return bt.RUNNING
    end
    return bt.SUCCESS
  end,
  cancel = function(ctx, params)
    ctx:log("walk interrupted")
  end,
})
