"""A kind of scenario of the tests' own, to show that a new kind is one module: the ruler's blocks measured in
whole rounds (each of its seven block sizes once a round), only the blocks of 10 no-ops or more kept, and the
sizes met named beside the distribution."""

from switchscope.figures.scenario_kind import KindReading, ScenarioKind

BLOCKS_PER_ROUND = 7  # firmware/scenarios/ruler.c: blocks of 0, 1, 2, 3, 10, 100 and the longest
LEAST_KEPT = 10


class WholeRounds(ScenarioKind):

    def samples(self, asked):
        return -(-asked // BLOCKS_PER_ROUND) * BLOCKS_PER_ROUND if asked else asked

    def time_allowance(self):
        return 5.0

    def reading(self, output, firmware_elf):
        whole = super().reading(output, firmware_elf)
        tags = output.stream.samples.column("tag").tolist()
        kept = [k for k, tag in enumerate(tags) if tag >= LEAST_KEPT]
        return KindReading(whole.reading.only(kept), leaves_out_ticks=whole.leaves_out_ticks, kept=kept,
                           facts={"details": {"block_sizes": sorted(set(tags))}})
