"""The measurement methods. Each is one object that says what it builds into
the firmware, what it needs of a target, what the simulator watches for it,
how a run becomes one reading per sample, and how its tables describe it.
A new method is a subclass here and an entry in METHODS. A `target` here
is a catalog Target, read by its attributes: this stage does not import the
catalog, which lists these methods."""


from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from switchscope.common.errors import FirmwareFailed
from switchscope.decode import elf, scope, stats
from switchscope.decode.recording import RunOutput
from switchscope.decode.wire import STAMP_WRAPPED, TICK_IN_WINDOW, Stream



@dataclass
class Reading:
    """What a method makes of one run: a raw value per sample (in the run's
    unit), the cost of the method to subtract from each, and what it records."""
    raw: "list[int] | np.ndarray"
    overheads: "list[int] | np.ndarray"
    overhead: int  # the one figure reported as the method's cost
    calibration: list[int]
    extra: dict = field(default_factory=dict)  # method-specific facts for the result (timer, scope)
    # cycles from a timing model: {"min": (raw, overheads), "max": (raw, overheads)}, the same windows
    # counted with the least and with the most cycles the core's manual allows
    bounds: dict | None = None

    def only(self, kept: list[int]) -> "Reading":
        """The same reading of the samples `kept` only (their indices, in order), bounds and all."""
        def pick(values):
            return [values[k] for k in kept]
        bounds = {side: (pick(raw), pick(overheads)) for side, (raw, overheads) in self.bounds.items()} \
            if self.bounds else self.bounds
        return Reading(pick(self.raw), pick(self.overheads), self.overhead, self.calibration, self.extra, bounds)


def warmup_windows(stream: Stream) -> int:
    """Windows the firmware opened before its first sample (rotate's warm-up)."""
    return meta_int(stream, "warmup_windows", "the stream") if "warmup_windows" in stream.meta else 0


def meta_int(stream: Stream, key: str, what: str, minimum: int = 0) -> int:
    """A whole number the firmware reported, at least `minimum`."""
    text = stream.meta.get(key, "")
    if text.isascii() and text.isdigit() and len(text) <= 20 and int(text) >= minimum:
        return int(text)
    raise FirmwareFailed(f"{what}: the firmware did not report a valid {key} ({text[:40]!r}; a whole number "
                         f"from {minimum} is needed)", "the board's stamp functions must report the timer's facts")


class Method:
    name: str = ""
    summary: str = ""
    defines: dict[str, str] = {}  # what a C build adds (-D)
    cargo_feature: str | None = None  # what a Rust build adds; None: nothing
    rust: bool = True  # whether Rust kernels can be built for it
    watches_scope_pin: bool = False  # the simulator records the scope pin's changes
    stamps_in_cycles: bool = False  # counting cycles on QEMU: the simulator logs every read of the stamp timer
    excludes_ticks: bool = True  # a window the kernel tick fell into is left out

    def unavailable(self, target, language: str, unit: str) -> str | None:
        """Why this method cannot measure on the target in the unit, or None."""
        if language == "rust" and not self.rust:
            return f"the {self.name} build exists for C kernels only"
        return None

    def watches(self, target, firmware_elf: Path, what: str, unit: str) -> list[tuple[int, str]]:
        """The (address, name) pairs the simulator reports each time execution reaches one."""
        return []

    def reading(self, stream: Stream, output: "RunOutput", target, what: str, unit: str) -> Reading:
        raise NotImplementedError

    def note(self, overhead, unit: str, pin: str | None) -> str:
        """The line of a table's heading that says what was subtracted."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"Method({self.name})"


class Probe(Method):
    name = "probe"
    summary = "on-target timer stamps around the switch, stamp cost calibrated and subtracted"
    stamps_in_cycles = True  # counting cycles on QEMU, the simulator stamps each read of the timer

    def unavailable(self, target, language, unit):
        if unit != target.unit and not (target.timing_model and (target.stamp_address or target.stamp_csr)):
            return f"the probe reads {target.stamp_timer}, which under {target.simulator} counts {target.unit}"
        return super().unavailable(target, language, unit)

    def reading(self, stream, output, target, what, unit):
        timer_reading = self._timer_reading(stream, target, what)
        if unit == target.unit:
            return timer_reading
        return self._cycle_reading(stream, output, timer_reading, what)

    @staticmethod
    def _cycle_reading(stream, output, timer_reading: Reading, what: str) -> Reading:
        """The same windows in modelled cycles. The simulator logs its cycle and
        instruction counts at every read of the stamp timer; each window the
        firmware sent (calibration pairs, then one per sample) is a pair of
        reads as many instructions apart as the firmware's own stamps say."""
        if output.events is None:
            raise FirmwareFailed(f"{what}: the simulator logged no reads of the stamp timer")
        logged = output.events.named("stamp")
        expected = [*timer_reading.calibration, *timer_reading.raw.tolist()]
        tolerances = [0] * len(timer_reading.calibration) + Probe._tolerances(stream)
        pairs = Probe._pairs_in_order(logged, expected, tolerances, 2 * warmup_windows(stream),
                                      len(timer_reading.calibration))
        if pairs is None:
            pairs = Probe._pairs_searched(logged, stream, timer_reading, what)
        calibrated = len(timer_reading.calibration)

        def windows(values: np.ndarray) -> tuple[list[int], np.ndarray, int]:
            """The calibration pairs' spans, the samples' spans, and the overhead, counted in `values`."""
            found = values[pairs[1]] - values[pairs[0]]
            calibration = found[:calibrated].tolist()
            return calibration, found[calibrated:], stats.overhead(calibration)

        calibration, raw, overhead = windows(logged.time)
        bounds = None
        if logged.bounded:  # the same windows at each end of the range the core's manual allows
            bounds = {}
            for side, values in (("min", logged.least), ("max", logged.most)):
                _, side_raw, side_overhead = windows(values)
                bounds[side] = (side_raw, np.full(len(side_raw), side_overhead))
        timer = {**timer_reading.extra["timer"], "stamped_in": "cycles, by the simulator at each read of the timer"}
        return Reading(raw.tolist(), np.full(len(raw), overhead), overhead, calibration, {"timer": timer}, bounds)

    @staticmethod
    def _tolerances(stream) -> list[int]:
        """How far, in instructions, the simulator's span of each window may be
        from what the firmware's stamps say: a window the tick fell into may be
        one instruction off where the timer reloaded inside it; one in which the
        timer wrapped says nothing of its length (it is left out, never paired
        by length)."""
        flags = stream.samples.column("flags")
        return np.where((flags & STAMP_WRAPPED) != 0, 2**62, (flags & TICK_IN_WINDOW) != 0).tolist()

    @staticmethod
    def _pairs_in_order(logged, expected: list[int], tolerances: list[int], skipped: int, after: int):
        """The windows' (opening read, closing read) positions in the log when
        the reads come exactly in pairs, window after window (`skipped` reads
        after the first `after` windows: the warm-up's), each pair as many
        instructions apart as the firmware's stamps say; None otherwise."""
        keep = np.ones(len(logged), dtype=bool)
        keep[2 * after:2 * after + skipped] = False
        kept = np.flatnonzero(keep)
        if len(kept) != 2 * len(expected):
            return None
        first, second = kept[0::2], kept[1::2]
        apart = logged.instructions[second] - logged.instructions[first]
        if (np.abs(apart - np.array(expected, dtype=np.int64)) > np.array(tolerances, dtype=np.int64)).any():
            return None
        return first, second

    @staticmethod
    def _pairs_searched(logged, stream, timer_reading: Reading, what: str) -> tuple[np.ndarray, np.ndarray]:
        """The same windows where reads come out of pairs: each is the next
        pair of reads whose instruction span equals what the firmware's stamps
        say, so a read outside the windows (a window opened again before it
        closed) is passed over, never paired."""
        stamps = list(logged)
        position = 0

        def pairs(expected: list[int], tolerances: list[int]) -> list[tuple[int, int]]:
            nonlocal position
            found = []
            for index, (instructions, tolerance) in enumerate(zip(expected, tolerances)):
                pair = next(((i, j) for i in range(position, min(position + 4, len(stamps)))
                             for j in range(i + 1, min(i + 4, len(stamps)))
                             if abs(stamps[j].instructions - stamps[i].instructions - instructions) <= tolerance),
                            None)
                if pair is None:
                    raise FirmwareFailed(f"{what}: window {index} of {len(expected)}: no two reads of the stamp "
                                         f"timer {instructions} instructions apart where the simulator saw them "
                                         f"({len(stamps)} reads in all)", "this is a bug: report it with the firmware")
                found.append(pair)
                position = pair[1] + 1
            return found

        calibration = pairs(timer_reading.calibration, [0] * len(timer_reading.calibration))
        position += 2 * warmup_windows(stream)  # rotate's warm-up windows: stamped, never sent
        found = np.array(calibration + pairs(timer_reading.raw.tolist(), Probe._tolerances(stream)),
                         dtype=np.int64).reshape(-1, 2)
        return found[:, 0], found[:, 1]

    def _timer_reading(self, stream, target, what) -> Reading:
        # a 32-bit free-running counter (DWT_CYCCNT) wraps at 2^32, which the firmware writes as 0
        modulus = 2**32 if stream.meta.get("stamp_modulus") == "0" else meta_int(stream, "stamp_modulus", what,
                                                                                minimum=2)
        clock_hz = meta_int(stream, "stamp_clock_hz", what, minimum=1)
        if stream.meta.get("stamp_direction") not in ("up", "down"):
            raise FirmwareFailed(f"{what}: the firmware did not say which way its stamp timer counts "
                                 f"(stamp_direction={stream.meta.get('stamp_direction', '')[:20]!r}, not up or down)")
        counts_down = stream.meta.get("stamp_direction") == "down"
        per_unit = target.counts_per_unit(clock_hz)

        def counts(start, end, length=None) -> np.ndarray:
            try:
                elapsed = stats.elapsed_counts_array(start, end, modulus, counts_down)
                if length is not None:  # a compact record gives the difference itself
                    too_long = np.flatnonzero(length >= modulus)
                    if len(too_long):
                        raise ValueError(f"window of {int(length[too_long[0]])} counts on a timer of period {modulus}")
                    elapsed = np.where(length >= 0, length, elapsed)
                return elapsed
            except ValueError as error:
                raise FirmwareFailed(f"{what}: corrupt stamp in the stream: {error}") from None

        pairs = np.array(stream.calibration, dtype=np.int64).reshape(-1, 2)
        calibration_counts = counts(pairs[:, 0], pairs[:, 1])
        if not len(calibration_counts):
            raise FirmwareFailed(f"{what}: the firmware sent no calibration of the probe")
        # an empty window takes a handful of counts; one that reads as most of the timer's period means
        # the stamps were taken the wrong way round (a wrong direction), and would shift every sample
        if int(calibration_counts.min()) > modulus // 2:
            raise FirmwareFailed(f"{what}: the probe's calibration reads {int(calibration_counts.min())} of the "
                                 f"timer's {modulus} counts for an empty window: the stamp timer does not count "
                                 f"{'down' if counts_down else 'up'} as the firmware says",
                                 "correct board_stamp_counts_down() (or the Rust board's STAMP_COUNTS_DOWN)")
        calibration = stats.counts_to_units_array(calibration_counts, per_unit).tolist()
        samples = stream.samples
        raw = stats.counts_to_units_array(counts(samples.column("start"), samples.column("end"),
                                                 samples.column("length")), per_unit)
        overhead = stats.overhead(calibration)
        timer = {"modulus": modulus, "direction": "down" if counts_down else "up",
                 "clock_hz": clock_hz, "counts_per_unit": str(per_unit)}
        return Reading(raw, np.full(len(raw), overhead), overhead, calibration, {"timer": timer})

    def note(self, overhead, unit, pin):
        return f"probe overhead {overhead} {unit} subtracted"


class Scope(Method):
    name = "scope"
    summary = "a pin pulse around the switch, timed by the simulator: tCS = tCD - tAB (embOS method)"
    defines = {"SWITCHSCOPE_METHOD_SCOPE": "1"}
    cargo_feature = "scope"
    watches_scope_pin = True

    def unavailable(self, target, language, unit):
        if not target.scope_pin:
            return f"{target.name} names no scope pin (board.toml, [scope] pin)"
        return super().unavailable(target, language, unit)

    def watches(self, target, firmware_elf, what, unit):
        if target.simulator != "qemu":
            return []  # simavr's runner logs the pin itself
        if target.scope_high_edge.startswith("."):  # sections listing every store of each edge (ibex-qemu)
            watches = [(address, name) for section, name in ((target.scope_high_edge, "pin1"),
                                                             (target.scope_low_edge, "pin0"))
                       for address in elf.section_words(firmware_elf, section)]
            if not watches:
                raise FirmwareFailed(f"{what}: the firmware lists no scope-pin stores ({target.scope_high_edge})")
            return watches
        found = elf.symbols(firmware_elf)
        try:  # the pin is a register written at two labelled stores
            return [(found[target.scope_high_edge], "pin1"), (found[target.scope_low_edge], "pin0")]
        except KeyError as missing:
            raise FirmwareFailed(f"{what}: the firmware has no scope-edge label {missing}") from None

    def reading(self, stream, output, target, what, unit):
        if output.edges is None:
            raise FirmwareFailed(f"{what}: the simulator recorded no scope pin changes")
        try:
            found = scope.measurements([(e.time, e.level) for e in output.edges])[warmup_windows(stream):]
        except scope.ScopeError as error:
            raise FirmwareFailed(f"{what}: {error}") from None
        if len(found) != len(stream.samples):
            raise FirmwareFailed(f"{what}: the scope pin shows {len(found)} measurements for "
                                 f"{len(stream.samples)} samples in the stream")
        t_cd = [int(m.t_cd) for m in found]
        t_ab = [int(m.t_ab) for m in found]
        bounds = None
        if output.edges and output.edges[0].least is not None:  # the same pulses, timed at each end of the range
            bounds = {}
            for side, time in (("min", lambda e: e.least), ("max", lambda e: e.most)):
                pulses = scope.measurements([(time(e), e.level) for e in output.edges])[warmup_windows(stream):]
                bounds[side] = ([int(m.t_cd) for m in pulses], [int(m.t_ab) for m in pulses])
        return Reading(t_cd, t_ab, Counter(t_ab).most_common(1)[0][0], sorted(set(t_ab)),
                       {"scope": {"pin": stream.meta.get("scope_pin"), "edges": len(output.edges)}}, bounds)

    def note(self, overhead, unit, pin):
        return f"pin {pin}: bare pulse tAB = {overhead} {unit} subtracted"


class Marker(Method):
    name = "marker"
    summary = "no code in the path: the simulator counts between two addresses of the firmware"
    defines = {"SWITCHSCOPE_METHOD_MARKER": "1"}
    cargo_feature = "marker"

    def watches(self, target, firmware_elf, what, unit):
        """The addresses of the firmware's markers, from the ELF sections
        .debug_switchscope_open and .debug_switchscope_close (the C and the Rust
        probe headers put them there), opening ones first: an empty window has
        both on one instruction, and must read open, then close."""
        watches = [(address, name) for name in ("open", "close")
                   for address in elf.section_words(firmware_elf, f".debug_switchscope_{name}")]
        if not any(name == "open" for _, name in watches) or not any(name == "close" for _, name in watches):
            raise FirmwareFailed(f"{what}: the firmware lists no markers "
                                 "(sections .debug_switchscope_open and .debug_switchscope_close)")
        return watches

    def reading(self, stream, output, target, what, unit):
        found, unpaired = Marker._intervals(output.events)
        skipped = warmup_windows(stream)
        found = found[skipped:]
        if len(found) != len(stream.samples) or unpaired:
            raise FirmwareFailed(f"{what}: the markers give {len(found)} windows ({unpaired} openings without a "
                                 f"closing) for {len(stream.samples)} samples in the stream")
        bounds = None
        if output.events.bounded:
            bounds = {side: (Marker._intervals(output.events, column)[0][skipped:], [0] * len(found))
                      for side, column in (("min", "least"), ("max", "most"))}
        return Reading(found, [0] * len(found), 0, [], bounds=bounds)

    @staticmethod
    def _intervals(events, column: str = "time") -> tuple[list[int], int]:
        """stats.intervals of the open and close events, counted in `column` (time, or the least or most
        cycles); at once when they alternate, as they do in a sound run."""
        if events is None:
            return [], 0
        values = getattr(events, column)
        opening, closing = events.is_named("open"), events.is_named("close")
        if len(events) % 2 == 0 and opening[0::2].all() and closing[1::2].all():
            return (values[1::2] - values[0::2]).tolist(), 0
        names = [events.names[i] for i in events.name_index.tolist()]
        return stats.intervals(list(zip(values.tolist(), names)), "open", "close")

    def note(self, overhead, unit, pin):
        return "counted by the simulator between two addresses: nothing to subtract"


class PrintInWindow(Marker):
    """Not a measurement method: the marker build with a trace line printed
    inside the window, to show in the intrusion report what printing from
    tasks costs. Catching ticks is part of that cost, so none is left out."""
    name = "print"
    summary = "the marker build, printing a trace line inside the window"
    defines = {"SWITCHSCOPE_METHOD_MARKER": "1", "SWITCHSCOPE_PRINT_IN_WINDOW": "1"}
    cargo_feature = None
    rust = False
    excludes_ticks = False


METHODS = {method.name: method for method in (Probe(), Scope(), Marker())}
PRINT_IN_WINDOW = PrintInWindow()
