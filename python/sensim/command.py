"""CARLA's carla.command: commands for client.apply_batch and apply_batch_sync.

Each command is the single call it names, run in order in this process (there is no round trip
to save): `apply_batch_sync(cmds)` returns one `Response` per command (`error` empty or the
engine's sentence, `actor_id`), then ticks once when do_tick is set. `SpawnActor(...).then(cmd)`
runs `cmd` after the spawn with `FutureActor` standing for the new actor's id.
"""
from __future__ import annotations

__all__ = ["Response", "FutureActor", "Command", "SpawnActor", "DestroyActor", "ApplyVehicleControl",
           "ApplyVehicleAckermannControl", "ApplyWalkerControl", "ApplyTransform", "ApplyLocation",
           "ApplyWalkerState", "ApplyTargetVelocity", "ApplyTargetAngularVelocity", "ApplyImpulse", "ApplyForce",
           "ApplyAngularImpulse", "ApplyTorque", "SetSimulatePhysics", "SetEnableGravity", "SetAutopilot",
           "SetVehicleLightState", "ShowDebugTelemetry", "ApplyVehiclePhysicsControl"]


class _Future:
    """CARLA's carla.command.FutureActor: the id of the actor the enclosing SpawnActor made."""

    def __repr__(self) -> str:
        return "FutureActor"


FutureActor = _Future()


class Response:
    """CARLA's carla.command.Response: actor_id (the spawned or addressed actor) and error."""

    def __init__(self, actor_id: int = 0, error: str = ""):
        self.actor_id = int(actor_id)
        self.error = error

    def has_error(self) -> bool:
        return bool(self.error)

    def __repr__(self) -> str:
        return f"Response(actor_id={self.actor_id}, error={self.error!r})"


class Command:
    """A command on one actor (`actor_id`, or FutureActor inside a SpawnActor's then)."""

    def __init__(self, actor, *args):
        self.actor_id = actor if actor is FutureActor else _aid(actor)
        self._args = args

    def _actor(self, world, future_id: int):
        aid = future_id if self.actor_id is FutureActor else self.actor_id
        a = world.get_actor(aid)
        if a is None:
            raise RuntimeError(f"{type(self).__name__}: actor {aid} not found")
        return a

    def _run(self, world, client, future_id: int = 0) -> int:
        a = self._actor(world, future_id)
        self._apply(a, world, client)
        return a.id

    def _apply(self, actor, world, client) -> None:  # pragma: no cover - each command has its own
        raise NotImplementedError


def _aid(actor) -> int:
    return int(actor.id) if hasattr(actor, "id") else int(actor)


def _simple(name: str, method: str, field: str, doc: str):
    """A command that is one actor method with one argument."""
    def __init__(self, actor, value):
        Command.__init__(self, actor)
        setattr(self, field, value)

    def _apply(self, actor, world, client):
        getattr(actor, method)(getattr(self, field))

    return type(name, (Command,), {"__init__": __init__, "_apply": _apply, "__doc__": doc})


ApplyVehicleControl = _simple("ApplyVehicleControl", "apply_control", "control", "vehicle.apply_control(control)")
ApplyVehicleAckermannControl = _simple("ApplyVehicleAckermannControl", "apply_ackermann_control", "control",
                                       "vehicle.apply_ackermann_control(control)")
ApplyWalkerControl = _simple("ApplyWalkerControl", "apply_control", "control", "walker.apply_control(control)")
ApplyTransform = _simple("ApplyTransform", "set_transform", "transform", "actor.set_transform(transform)")
ApplyLocation = _simple("ApplyLocation", "set_location", "location", "actor.set_location(location)")
ApplyTargetVelocity = _simple("ApplyTargetVelocity", "set_target_velocity", "velocity",
                              "actor.set_target_velocity(velocity)")
ApplyTargetAngularVelocity = _simple("ApplyTargetAngularVelocity", "set_target_angular_velocity",
                                     "angular_velocity", "actor.set_target_angular_velocity(angular_velocity)")
ApplyImpulse = _simple("ApplyImpulse", "add_impulse", "impulse", "actor.add_impulse(impulse)")
ApplyForce = _simple("ApplyForce", "add_force", "force", "actor.add_force(force)")
ApplyAngularImpulse = _simple("ApplyAngularImpulse", "add_angular_impulse", "impulse",
                              "actor.add_angular_impulse(impulse)")
ApplyTorque = _simple("ApplyTorque", "add_torque", "torque", "actor.add_torque(torque)")
SetSimulatePhysics = _simple("SetSimulatePhysics", "set_simulate_physics", "enabled",
                             "actor.set_simulate_physics(enabled)")
SetEnableGravity = _simple("SetEnableGravity", "set_enable_gravity", "enabled", "actor.set_enable_gravity(enabled)")
SetVehicleLightState = _simple("SetVehicleLightState", "set_light_state", "light_state",
                               "vehicle.set_light_state(light_state)")
ShowDebugTelemetry = _simple("ShowDebugTelemetry", "show_debug_telemetry", "enabled",
                             "vehicle.show_debug_telemetry(enabled)")
ApplyVehiclePhysicsControl = _simple("ApplyVehiclePhysicsControl", "apply_physics_control", "physics_control",
                                     "vehicle.apply_physics_control(physics_control)")


class ApplyWalkerState(Command):
    """CARLA's ApplyWalkerState(actor, transform, speed): teleports the walker and sets its speed."""

    def __init__(self, actor, transform, speed: float):
        super().__init__(actor)
        self.transform, self.speed = transform, float(speed)

    def _apply(self, actor, world, client):
        actor.set_transform(self.transform)
        fwd = self.transform.get_forward_vector()
        actor.set_target_velocity(fwd * self.speed)


class DestroyActor(Command):
    """actor.destroy() (an actor already gone is an error, as CARLA's)."""

    def _apply(self, actor, world, client):
        actor.destroy()


class SetAutopilot(Command):
    """vehicle.set_autopilot(enabled, tm_port)."""

    def __init__(self, actor, enabled: bool, tm_port: int = 8000):
        super().__init__(actor)
        self.enabled, self.tm_port = bool(enabled), tm_port

    def _apply(self, actor, world, client):
        actor.set_autopilot(self.enabled, self.tm_port)


class SpawnActor:
    """world.spawn_actor(blueprint, transform, parent); `.then(command)` runs after it, with
    FutureActor as the new actor."""

    def __init__(self, blueprint=None, transform=None, parent=None):
        self.blueprint, self.transform = blueprint, transform
        self.parent_id = 0 if parent is None else _aid(parent)
        self._then: list[Command] = []

    def then(self, command: Command) -> "SpawnActor":
        self._then.append(command)
        return self

    def _run(self, world, client, future_id: int = 0) -> int:
        parent = world.get_actor(self.parent_id) if self.parent_id else None
        if self.parent_id and parent is None:
            raise RuntimeError(f"SpawnActor: parent {self.parent_id} not found")
        a = world.spawn_actor(self.blueprint, self.transform, attach_to=parent)
        for c in self._then:
            c._run(world, client, a.id)
        return a.id


def run_batch(client, commands, do_tick: bool, respond: bool) -> list[Response] | None:
    """Runs each command in order; an error stops only its own command (CARLA's batches)."""
    world = client.get_world()
    out = []
    for c in commands:
        if not hasattr(c, "_run"):
            raise TypeError(f"apply_batch: {c!r} is not a carla.command")
        try:
            out.append(Response(c._run(world, client)))
        except (RuntimeError, ValueError, TypeError, IndexError) as e:
            aid = getattr(c, "actor_id", 0)
            out.append(Response(aid if isinstance(aid, int) else 0, str(e)))
    if do_tick:
        world.tick()
    return out if respond else None
