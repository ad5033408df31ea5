"""An interactive window stepping through a path: play/pause and a snapshot slider.

:class:`Player` holds the state (which snapshot is shown, playing or not);
:func:`add_controls` puts the widgets on its window and wires them to it. Both work
offscreen too. :func:`show` opens the window; on a machine without a display it
raises :class:`NoDisplayError` at once. The slider steps through snapshots rather than
seconds, because the snapshots of an external motion (blocks dropping) share one time;
the caption gives each one's time. A dynamic path (full dynamics) is stepped through in
real time, a snapshot per tick of the clock (:func:`viz.snapshots.frames`), its caption
giving the stretch's mode and the energies.

    >>> has_display({"DISPLAY": ":0"}, "linux"), has_display({}, "linux"), has_display({}, "darwin")
    (True, False, True)
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping

from cspace.model.errors import CspaceError

from .scene import Scene
from .snapshots import Traced, frames

FRAME_MILLISECONDS = 100


class NoDisplayError(CspaceError, RuntimeError):
    """An interactive window was asked for where there is no display to open it on."""


def has_display(environ: Mapping[str, str], platform: str | None = None) -> bool:
    """Whether a window can open: always on Windows and macOS; elsewhere X11 or Wayland must be
    named in ``environ`` (the command line passes its environment: the library reads none)."""
    platform = sys.platform if platform is None else platform
    if platform.startswith(("win", "darwin")):
        return True
    return bool(environ.get("DISPLAY") or environ.get("WAYLAND_DISPLAY"))


class Player:
    """Shows one snapshot of a path at a time in a scene; playing advances one snapshot per tick
    (a dynamic path's snapshots are a tick apart in time).

    >>> from cspace import analyze, load, trace
    >>> player = Player(trace(analyze(load("fixtures/feeder.toml")), until=1), size=(160, 120))
    >>> player.play(True); player.tick(); player.tick()
    >>> player
    Player('feeder', index=2, snapshots=5, playing=True)
    >>> player.close()
    """

    def __init__(self, trace: Traced, *, size: tuple[int, int] = (1024, 768), off_screen: bool = True) -> None:
        self.name = trace.mechanism.name
        self.shots = frames(trace, 1000 / FRAME_MILLISECONDS)
        self.scene = Scene(trace, size=size, framed=[s.values for s in self.shots], off_screen=off_screen)
        self.index = 0
        self.playing = False
        self.go_to(0)

    def go_to(self, index: float) -> None:
        """Show snapshot ``index``, rounded (a slider gives floats) and clamped to the path."""
        self.index = min(max(round(index), 0), len(self.shots) - 1)
        shot = self.shots[self.index]
        self.scene.pose(shot.values, shot.caption)

    def play(self, playing: bool) -> None:
        """Start (True) or stop (False) advancing on :meth:`tick`."""
        self.playing = bool(playing)

    def tick(self) -> None:
        """Advance one snapshot if playing, from the last back to the first."""
        if self.playing:
            self.go_to((self.index + 1) % len(self.shots))

    def close(self) -> None:
        self.scene.close()

    def __repr__(self) -> str:
        return f"Player({self.name!r}, index={self.index}, snapshots={len(self.shots)}, playing={self.playing})"


def show(trace: Traced, *, size: tuple[int, int] = (1024, 768)) -> None:
    """Open a window playing the path (a trace or a dynamic path), with a play/pause button and a snapshot slider.

    Returns when the window is closed (:func:`check_display` says first whether one can open).
    """
    player = Player(trace, size=size, off_screen=False)
    add_controls(player)
    player.scene.plotter.show(title=f"cspace: {player.name}")


def add_controls(player: Player) -> Callable[[int], None]:
    """Put a play/pause button and a snapshot slider on the player's window and start its clock.

    Returns the clock's callback: each tick shows the next snapshot while playing and
    moves the slider with it.
    """
    plotter = player.scene.plotter
    slider = plotter.add_slider_widget(player.go_to, [0, len(player.shots) - 1], value=0, title="snapshot",
                                       pointa=(0.45, 0.08), pointb=(0.95, 0.08), fmt="%.0f",
                                       interaction_event="always", style="modern")
    plotter.add_checkbox_button_widget(player.play, value=False, position=(10, 10), size=30)
    plotter.add_text("play / pause", position=(48, 16), font_size=10, color="black")

    def tick(_step: int) -> None:
        if player.playing:
            player.tick()
            slider.GetRepresentation().SetValue(player.index)
            plotter.render()

    plotter.add_timer_event(max_steps=2**31 - 1, duration=FRAME_MILLISECONDS, callback=tick)
    return tick


def check_display(environ: Mapping[str, str]) -> None:
    """Raise NoDisplayError unless :func:`has_display`."""
    if not has_display(environ):
        raise NoDisplayError("no display available for an interactive window (neither DISPLAY nor "
                             "WAYLAND_DISPLAY is set); use `cspace animate` instead")
