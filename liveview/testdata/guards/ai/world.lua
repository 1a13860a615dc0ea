-- The guards' world: names them and says hello.
local world = {}

function world.init(game)
  game.log("guards on duty")
end

function world.spawn(ctx)
  ctx.agent.x = 0
  ctx.agent.post = { name = ctx.id, gate = "north" }
end

function world.tick(game) end

function world.save() return {} end

function world.load(t) end

return world
