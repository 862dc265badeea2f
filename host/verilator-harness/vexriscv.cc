// Testbench for the Verilator model of a VexRiscv core as LiteX generates it (built by
// switchscope's build stage, switchscope/build/vexriscv.py, from the Verilog of the pip
// package pythondata-cpu-vexriscv): the core alone, its two Wishbone masters (iBusWishbone,
// dBusWishbone) answered here by a RAM and the devices below, its interrupt inputs driven here.
//
//   vexriscv-sim [--max-cycles N] [--watch NAME=ADDRESS]... [--log FILE] [--limit N] [--stop N]
//                [--parameters-at ADDRESS --parameters TEXT] [--pin NAME --pin-log FILE]
//                [--fetch-wait-states N] [--data-wait-states N] [--window-trace FILE [--window K]]
//                [--switch-word ADDRESS [--switch-name OFFSET:BYTES] [--switch-path ADDRESS]...] PROGRAM.elf
//
// Every option but the wait states is Ibex's testbench's, with the same meaning (harness.cc's usage):
// the watch log, --limit, --stop, the parameters, the pin log, --window-trace and --switch-word's
// trap flow. The core starts at 0x100080 (externalResetVector), as Ibex in simple_system does.
//
// The memory: 1 MB of RAM at 0x100000, code and data, which both buses reach. A bus access is a
// Wishbone beat: the testbench raises ACK in the beat's first cycle (a beat a cycle), or, to the RAM
// only, after the wait states: --fetch-wait-states N holds each instruction-bus beat N cycles more,
// --data-wait-states N each data-bus beat to the RAM (0 to 255, default 0 both). The caches' line refills are
// bursts of 8 beats (32-byte lines, a 32-bit bus), each beat costing 1 + N cycles. The data cache
// writes through: every store is a beat of its own on the data bus.
//
// The devices, at Ibex's offsets with the address's top bit set (VexRiscv's data cache leaves
// uncached only the addresses whose top bit is set: LiteX's ioRange), never waited for:
//
//   0x80020000  OUTPUT       each byte stored is streamed to stdout
//   0x80020008  HALT         a word with bit 0 set ends the run; bits 8-15 are the exit code
//   0x80020010  PIN          the scope pin (--pin-log: "<cycle> <NAME> <level>" at every store)
//   0x80020014  SOFT_IRQ     bit 0 is the level of softwareInterrupt (mcause 0x80000003) from the
//                            cycle after the store's on: 1 raises it, 0 lowers it
//   0x80020018  LATENCY      the latency timer, one-shot, on externalInterruptArray[0] (the machine
//                            external interrupt, mcause 0x8000000B, once the core's mask CSR 0xBC0
//                            has bit 0 set): a store of N >= 1 raises the line in cycle S + N
//                            exactly, S being the store's cycle, and holds it; 0 stops the timer
//                            and lowers the line from the next cycle
//   0x80030000  MTIME        64 bits, the clock's cycles since reset (read only)
//   0x80030008  MTIMECMP     64 bits; timerInterrupt is high while MTIME >= MTIMECMP
//
// A device store's cycle S is the cycle of its beat on the data bus. Cycles in the logs are
// mcycle's: the pin log's and an assertion's, mcycle's value in that cycle; a watched instruction's,
// the value a `csrr mcycle` in its place would read: mcycle in its last cycle in the execute stage,
// where the core reads CSRs (tests/run/test_vexriscv.py checks it against a csrr). A load that misses
// the data cache passes execute twice: the cache sends it back from writeback (redo) and it runs
// again once its line is in; its cycle is its first pass's, where a csrr in its place would have read,
// and the refill is the load's own cost (a window that opens on it pays it). That is not its
// cycle in writeback less two: a load ahead of it that misses the data cache stalls writeback, and
// with it an instruction already past execute. An instruction retires when it leaves the writeback
// stage (lastStageIsFiring); a trapped one (ecall) never does, and a handler's first instruction is
// the first to retire after the core took a trap.
//
// --window-trace adds, before an instruction whose fetch missed the instruction cache, a line
// "<cycle> f icache-miss 0": the miss's cycles are in that instruction's.
//
// The last line on stderr says how it ended: "vexriscv-sim: halted code=N after ..." (the program's
// exit code), "... cycle bound reached ...", "... stop or limit reached ..." or "... fetch outside
// the RAM ..." (a jump to nowhere: the core's mtvec is not set until a kernel sets it).
//
// Exit statuses: 0 the program halted (whatever its code) or the stop or limit was reached, 1 the
// cycle bound came first or the program fetched outside the RAM, 2 bad usage or an ELF that does not
// fit the RAM.

#include <cinttypes>
#include <cstdio>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "VVexRiscv.h"
#include "VVexRiscv_VexRiscv.h"
#include "testbench.h"
#include "verilated.h"

namespace {

constexpr uint32_t kRamBase = 0x100000;
constexpr uint32_t kRamSize = 1024 * 1024;
constexpr uint32_t kResetVector = kRamBase + 0x80;
constexpr uint32_t kControlBase = 0x80020000;
constexpr uint32_t kOutput = kControlBase + 0x0, kHalt = kControlBase + 0x8, kPin = kControlBase + 0x10,
                   kSoftIrq = kControlBase + 0x14, kLatency = kControlBase + 0x18;
constexpr uint32_t kTimerBase = 0x80030000;
constexpr uint32_t kMtime = kTimerBase, kMtimecmp = kTimerBase + 8;
constexpr unsigned kPastExecute = 4;  // instructions between execute and retirement, and to spare
constexpr testbench::Machine kMachine = {"vexriscv-sim", kRamBase, kRamSize,
                                         "link it for the vexriscv board's map (RAM at 0x100000, 1 MB)"};

bool in_ram(uint32_t address) { return address >= kRamBase && address - kRamBase < kRamSize; }

// One Wishbone slave port: counts the cycles of the beat on it, and says when to acknowledge it.
struct BusPort {
  uint32_t wait_states = 0;
  uint32_t held = 0;  // cycles the current beat has waited

  bool acknowledge(bool requested, uint32_t address) {
    if (!requested) {
      held = 0;
      return false;
    }
    uint32_t waits = in_ram(address) ? wait_states : 0;
    if (held < waits) {
      ++held;
      return false;
    }
    held = 0;
    return true;
  }
};

}  // namespace

int main(int argc, char **argv) {
  auto no_own_option = [](const std::string &, const std::function<std::string()> &) { return false; };
  const testbench::Options options = testbench::parse_options(kMachine, argc, argv, no_own_option, "");
  uint32_t entry = 0;
  std::vector<uint32_t> ram = testbench::load_elf(kMachine, options, &entry);
  if (entry != kResetVector)
    std::fprintf(stderr, "vexriscv-sim: note: the ELF's entry is 0x%08x, but the core starts at 0x%08x\n", entry,
                 kResetVector);
  testbench::Outputs outputs(kMachine, options);
  FILE *const pin_log = outputs.pin_log;

  auto context = std::make_unique<VerilatedContext>();
  auto top = std::make_unique<VVexRiscv>(context.get(), "TOP");
  auto *core = top->VexRiscv;  // the public signals' module, kept apart from the root
  const testbench::Code code{ram, kRamBase};
  auto read_word = [&](uint32_t address) { return in_ram(address) ? ram[(address - kRamBase) / 4] : 0u; };
  testbench::RetirementLog retirements(options, code, outputs.log, outputs.window_trace, read_word);

  const uint8_t *firing = &core->lastStageIsFiring;
  const uint32_t *retired_pc = &core->lastStagePc;
  const uint8_t *rd_valid = &core->lastStageRegFileWrite_valid;
  const uint8_t *rd_addr = &core->lastStageRegFileWrite_payload_address;
  const uint32_t *rd_data = &core->lastStageRegFileWrite_payload_data;
  const uint64_t *mcycle = &core->CsrPlugin_mcycle;
  const uint32_t *mepc = &core->CsrPlugin_mepc;
  const uint8_t *mcause_interrupt = &core->CsrPlugin_mcause_interrupt;
  const uint8_t *had_exception = &core->CsrPlugin_hadException;
  const uint8_t *interrupt_jump = &core->CsrPlugin_interruptJump;
  const uint8_t *fetch_missed = &core->when_IBusCachedPlugin_l250;
  const uint32_t *missed_pc = &core->IBusCachedPlugin_iBusRsp_stages_2_input_payload;
  const uint32_t *decode_pc = &core->decode_PC;
  const uint8_t *executed = &core->execute_arbitration_isFiring;
  const uint32_t *execute_pc = &core->execute_PC;
  const uint8_t *redone = &core->DBusCachedPlugin_redoBranch_valid;  // the data cache sends back the load in writeback
  testbench::RecentInstructions<kPastExecute> executed_last;  // mcycle as each left the execute stage

  top->externalResetVector = kResetVector;
  top->timerInterrupt = 0;
  top->softwareInterrupt = 0;
  top->externalInterruptArray = 0;
  top->iBusWishbone_ACK = 0;
  top->iBusWishbone_ERR = 0;
  top->dBusWishbone_ACK = 0;
  top->dBusWishbone_ERR = 0;
  top->reset = 1;
  for (int i = 0; i < 8; ++i) {  // the core's reset is synchronous: it needs edges
    top->clk = 0;
    top->eval();
    top->clk = 1;
    top->eval();
  }
  top->clk = 0;
  top->reset = 0;
  top->eval();

  BusPort fetch{options.fetch_wait_states}, data{options.data_wait_states};
  uint64_t cycle = 0, retired = 0, mtimecmp = ~0ull;
  bool halted = false, stopped = false, lost = false;
  unsigned exit_code = 0;
  bool soft_next = false, latency_armed = false, latency_level = false;
  uint64_t latency_expiry = 0;
  bool trap_taken = false;  // the next instruction to retire is a handler's first
  std::unordered_set<uint32_t> missed;  // fetches that missed the instruction cache, until they retire
  std::unordered_map<uint32_t, uint64_t> first_pass;  // a redone load's first cycle leaving execute, until it retires
  const bool following = !options.watches.empty() || options.follow_switches;
  while (cycle < options.max_cycles && !context->gotFinish()) {
    // this cycle's interrupt lines, then the buses' answers to what the core asks in it
    top->softwareInterrupt = soft_next;
    bool asserted_now = latency_armed && *mcycle == latency_expiry;
    if (asserted_now) {
      latency_armed = false;
      latency_level = true;
    }
    top->externalInterruptArray = latency_level ? 1u : 0u;
    top->timerInterrupt = cycle >= mtimecmp;
    top->iBusWishbone_ACK = 0;
    top->dBusWishbone_ACK = 0;
    top->eval();
    if (asserted_now && !options.watches.empty()) retirements.assertion(*mcycle, *decode_pc);

    uint32_t fetch_address = top->iBusWishbone_ADR << 2;
    if (fetch.acknowledge(top->iBusWishbone_CYC && top->iBusWishbone_STB, fetch_address)) {
      if (!in_ram(fetch_address)) {
        std::fprintf(stderr, "vexriscv-sim: fetch outside the RAM at 0x%08x\n", fetch_address);
        lost = true;
        break;
      }
      top->iBusWishbone_DAT_MISO = ram[(fetch_address - kRamBase) / 4];
      top->iBusWishbone_ACK = 1;
    }
    uint32_t data_address = top->dBusWishbone_ADR << 2;
    if (data.acknowledge(top->dBusWishbone_CYC && top->dBusWishbone_STB, data_address)) {
      uint32_t value = top->dBusWishbone_DAT_MOSI, lanes = top->dBusWishbone_SEL;
      uint32_t read = 0;
      if (in_ram(data_address)) {
        uint32_t &word = ram[(data_address - kRamBase) / 4];
        if (top->dBusWishbone_WE) {
          for (unsigned lane = 0; lane < 4; ++lane)
            if (lanes & (1u << lane)) word = (word & ~(0xFFu << (8 * lane))) | (value & (0xFFu << (8 * lane)));
        }
        read = word;
      } else if (top->dBusWishbone_WE) {
        if (data_address == kOutput) {
          std::fputc(static_cast<int>(value & 0xFF), stdout);
          if ((value & 0xFF) == '\n') std::fflush(stdout);
        } else if (data_address == kHalt && (value & 1)) {
          halted = true;
          exit_code = (value >> 8) & 0xFF;
        } else if (data_address == kPin) {
          if (pin_log != nullptr) std::fprintf(pin_log, "%" PRIu64 " %s %u\n", *mcycle, options.pin_name.c_str(), value & 1);
        } else if (data_address == kSoftIrq) {
          soft_next = value & 1;
        } else if (data_address == kLatency) {
          latency_level = false;  // stopped or re-armed: the line falls from the next cycle
          latency_armed = value != 0;
          latency_expiry = *mcycle + value;
        } else if (data_address == kMtimecmp) {
          mtimecmp = (mtimecmp & ~0xFFFFFFFFull) | value;
        } else if (data_address == kMtimecmp + 4) {
          mtimecmp = (mtimecmp & 0xFFFFFFFFull) | (uint64_t(value) << 32);
        }
      } else if (data_address == kMtime || data_address == kMtime + 4) {
        read = static_cast<uint32_t>(cycle >> (data_address == kMtime ? 0 : 32));
      } else if (data_address == kMtimecmp || data_address == kMtimecmp + 4) {
        read = static_cast<uint32_t>(mtimecmp >> (data_address == kMtimecmp ? 0 : 32));
      }
      top->dBusWishbone_DAT_MISO = read;
      top->dBusWishbone_ACK = 1;
    }
    top->eval();

    if (following) {
      if (outputs.window_trace != nullptr && *fetch_missed) missed.insert(*missed_pc);
      if (*firing) {
        ++retired;
        uint32_t pc = *retired_pc;
        bool miss = !missed.empty() && missed.erase(pc) > 0;
        uint64_t start = executed_last.cycle_of(pc, *mcycle);  // not found: it retires as it leaves execute
        if (auto redone_at = first_pass.find(pc); redone_at != first_pass.end()) {
          start = redone_at->second;
          first_pass.erase(redone_at);
        }
        stopped = !retirements.retire({pc, start, trap_taken, *mcause_interrupt != 0, *mepc,
                                       *rd_valid && *rd_addr == 1, *rd_data, miss});
        trap_taken = false;
      }
      if (*had_exception || *interrupt_jump) trap_taken = true;
      if (*redone) first_pass.emplace(*retired_pc, executed_last.cycle_of(*retired_pc, *mcycle));
      if (*executed) executed_last.note(*execute_pc, *mcycle);
    } else if (*firing) {
      ++retired;
    }
    top->clk = 1;
    top->eval();
    ++cycle;
    top->clk = 0;
    top->eval();
    if (halted || stopped) break;
  }
  top->final();
  testbench::finish_run(kMachine, retirements, halted, exit_code, stopped, lost ? "fetch outside the RAM" : nullptr,
                        context->gotFinish(), cycle, retired);
  outputs.close();
  return halted || stopped ? 0 : 1;
}
