// Testbench for the Verilator model of Ibex's simple_system (built by switchscope's
// build stage, switchscope/build/verilator.py, from a copy of simple_system's top
// whose interrupt lines are inputs this testbench drives):
// loads an ELF into its RAM, clocks it for at most a given number of cycles,
// streams what the program writes to the output register (0x20000) to stdout,
// stops when the program writes a word with bit 0 set to the halt register
// (0x20008; bits 8-15 are its exit code), and logs "<cycle> <name>" each time
// an instruction at a watched address retires.
//
//   ibex-sim [--max-cycles N] [--watch NAME=ADDRESS]... [--log FILE] [--limit N] [--stop N]
//            [--parameters-at ADDRESS --parameters TEXT] [--pin NAME --pin-log FILE]
//            [--trace FILE_BASE] [--window-trace FILE [--window K]]
//            [--switch-word ADDRESS [--switch-name OFFSET:BYTES] [--switch-path ADDRESS]...]
//            [--fetch-wait-states N] [--data-wait-states N] PROGRAM.elf
//
// --fetch-wait-states and --data-wait-states (0 to 255, default 0) make the
// RAM a slow memory: it takes an instruction fetch, or a data access to the
// RAM, only once the core has held the request N cycles, and answers a cycle
// after that (wait_states.sv). Ibex's own prefetch buffer and load-store unit
// decide what the wait costs. The simulator-control and timer registers
// answer at once whatever N.
//
// --log sends the watch lines to a file (default stderr). --limit ends the run
// after that many watch lines (the log then ends "<cycle> limit"); --stop ends
// it once that many intervals are complete, a watch named "to" after one named
// "from" (the simavr runner's options, same meaning). --parameters writes TEXT,
// NUL-terminated, into the RAM at ADDRESS before the core starts (a board's
// parameter buffer). --pin-log logs "<cycle> <NAME> <level>" at every store to
// the pin register (0x20010, the window's spare word: a scope pin a board can
// drive), the cycle being the store's on the bus. Several watches may share an
// address: each is logged, in the order given. --trace writes Ibex's own instruction trace to
// FILE_BASE_00000000.log, in a model built with the tracer only.
// --window-trace writes every instruction retired in the K-th interval (from 0,
// default 0) from a watch named "from" or "open" to one named "to" or "close":
// "<cycle> i <pc>" for each, the cycle being its first in ID/EX as for the
// watches, then "<cycle> end" at the closing one (the QEMU plugin's trace
// format).
//
// Devices of its own, in simple_system's simulator-control window (0x20000,
// 1 kB), seen through the window's bus signals: simulator_ctrl itself ignores
// stores to these offsets and reads them as 0 (write-only registers). Cycles
// are the clock's, which mcycle counts too unless the core sleeps in wfi (its
// clock is then gated). "The store's cycle" S is the cycle a store is on the bus: its first
// cycle in ID/EX, where a `csrr mcycle` in its place would read S.
//
//   0x20010  PIN           the scope pin (above)
//   0x20014  SOFT_IRQ      bit 0 is the level of the core's irq_software_i (interrupt 3,
//                          mcause 0x80000003) from cycle S + 1 on: store 1 raises it,
//                          0 lowers it. The core does not lower a level line: the
//                          handler stores 0.
//   0x20018  LATENCY       the latency timer, one-shot, on irq_fast_i[0] (interrupt 16,
//                          vector mtvec + 0x40): a store of N >= 1 arms it to raise the
//                          line in cycle S + N exactly (a `csrr mcycle` there would
//                          read S + N), where it stays until stopped; a store of 0 stops
//                          the timer and lowers the line from cycle S + 1. Storing N
//                          again re-arms it (a raised line is low from S + 1 until
//                          the new expiry, if N >= 2).
//   0x2001C  LATENCY_NMI   the same timer on irq_nm_i (the non-maskable interrupt,
//                          vector mtvec + 0x7C) instead; a store of 0 to either stops it.
//
// With watches, each raising of the latency timer's line is logged as
// "<cycle> assert@<address>", the cycle being mcycle's value in the first
// cycle the line is high and the address the instruction in ID/EX then (the
// simavr runner's event, same meaning); it counts towards --limit. The log is
// in cycle order: an assertion in the first cycle of a watched instruction
// comes before it, one in its later cycles after it.
//
// With --switch-word ADDRESS (a kernel's current-task variable, FreeRTOS's
// pxCurrentTCB) it also logs the trap flow task switches are made of, in the
// QEMU plugin's format, each with the variable's value (hex, read from the RAM
// as the event retires) and the cycle of the instruction's first in ID/EX:
//   "<cycle> entry@<handler>:<word>:<pc>:<ra>"  an exception taken from a task:
//            handler is where the vector's jump goes (the vector itself if it
//            holds no jump), pc is mepc (the ecall), ra the return address
//            register then; the cycle the vector's first;
//   "<cycle> entry@<vector>:<word>:<pc>:<ra>" then "<cycle> chain@<handler>:<word>"
//            an interrupt taken from a task: the vector (mtvec + 4 * cause)
//            says which interrupt, the chain the handler it jumps to, both at
//            the vector's cycle, where that handler is a --switch-path address
//            (or none is given);
//   "<cycle> chain@<address>:<word>"  a --switch-path address reached in a
//            handler by other code than the vector's jump (a board's own entry
//            that goes on to the kernel's), the cycle its first instruction's;
//   "nest@" instead of entry@ for a trap taken in a handler (Ibex clears
//            mstatus.MIE on entry: only the NMI), "chain@" for one taken
//            right after an mret, before the task's first instruction;
//   "<cycle> resume@<address>:<word>[:<name>]"  the first instruction after an
//            mret, where it returned to; with --switch-name the task's name,
//            read at word + OFFSET (hex bytes up to its NUL, at most BYTES).
// --stop then counts switches (resumes whose word is not the one the entry
// saw) instead of intervals. Traps are seen on RVFI (rvfi_intr marks a
// handler's first instruction), mcause and mepc in the CSR file.
//
// The last line on stderr says how it ended: "ibex-sim: halted code=N after ..."
// (the program's exit code), "... cycle bound reached ..." or "... stop or limit
// reached ...".
//
// Retirements are seen on the core's RVFI port (rvfi_valid, rvfi_pc_rdata),
// which ibex_top_tracing exposes when RVFI is defined: it reports every
// retired instruction, a trapped one and a handler's first instruction
// included, in both the two- and three-stage pipelines. The logged cycle is
// mcycle's value in the instruction's first cycle in ID/EX (noted from the ID
// stage's instr_first_cycle_id and pc_id as it enters), so that the difference
// of two watches is every cycle from the first instruction's start to the
// second's, the first's own later cycles included, as the QEMU plugin and the
// simavr runner count. For `csrr x, mcycle`, a one-cycle instruction, it is
// the value that csrr reads (RVFI's rvfi_ext_mcycle, that of its last cycle,
// is the same), and that is what it falls back to.
//
// Exit statuses: 0 the program halted (whatever its code) or the stop or limit
// was reached, 1 the cycle bound came first (or the model stopped by itself),
// 2 bad usage or an ELF that does not fit the RAM.

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

#include "Vibex_simple_system.h"
#include "Vibex_simple_system__Dpi.h"
#include "Vibex_simple_system___024root.h"
#include "svdpi.h"
#include "testbench.h"
#include "verilated.h"

namespace {

constexpr uint32_t kRamBase = 0x100000;
constexpr uint32_t kRamSize = 1024 * 1024;
constexpr uint32_t kOutputOffset = 0x0;  // register offsets inside the 1 kB simulator-control window
constexpr uint32_t kHaltOffset = 0x8;
constexpr uint32_t kPinOffset = 0x10;
constexpr uint32_t kSoftIrqOffset = 0x14;
constexpr uint32_t kLatencyOffset = 0x18;
constexpr uint32_t kLatencyNmiOffset = 0x1C;
constexpr const char *kRamScope = "TOP.ibex_simple_system.u_ram.u_ram";
constexpr testbench::Machine kMachine = {"ibex-sim", kRamBase, kRamSize,
                                         "link it for the simple_system map (RAM at 0x100000, 1 MB)"};

void write_ram(const std::vector<uint32_t> &image) {
  svScope scope = svGetScopeFromName(kRamScope);
  if (scope == nullptr) {
    std::fprintf(stderr, "ibex-sim: the model has no RAM at %s (built from another top?)\n", kRamScope);
    std::exit(1);
  }
  svSetScope(scope);
  svBitVecVal word[10] = {};  // simutil_set_mem takes 312 bits; the RAM is 32 wide
  for (size_t index = 0; index < image.size(); ++index) {
    word[0] = image[index];
    simutil_set_mem(static_cast<int>(index), word);
  }
}

// A word of the RAM as it is now (the model's, through the same DPI that loaded it).
uint32_t read_ram(uint32_t address) {
  if (address < kRamBase || address + 4 > kRamBase + kRamSize) return 0;
  svSetScope(svGetScopeFromName(kRamScope));
  svBitVecVal word[10] = {};
  simutil_get_mem(static_cast<int>((address - kRamBase) / 4), word);
  return word[0];
}

}  // namespace

int main(int argc, char **argv) {
  std::string trace_base;
  auto own_option = [&](const std::string &argument, const std::function<std::string()> &value) {
    if (argument != "--trace") return false;
#if IBEX_SIM_TRACER
    trace_base = value();
#else
    (void)value;
    testbench::usage_error(kMachine, "this model was built without Ibex's tracer",
                           "build one with it: switchscope.build.verilator.ensure(CONFIG, tracer=True)");
#endif
    return true;
  };
  const testbench::Options options = testbench::parse_options(kMachine, argc, argv, own_option, "--trace, ");
  uint32_t entry = 0;
  std::vector<uint32_t> image = testbench::load_elf(kMachine, options, &entry);
  if (entry != kRamBase + 0x80)
    std::fprintf(stderr, "ibex-sim: note: the ELF's entry is 0x%08x, but Ibex starts at 0x%08x (boot address + 0x80)\n",
                 entry, kRamBase + 0x80);

  testbench::Outputs outputs(kMachine, options);
  FILE *const pin_log = outputs.pin_log;

  // simulator_ctrl opens "ibex_simple_system.log" in the working directory when the model first
  // evaluates: give it a private folder, gone again right after (what it logs, we stream to stdout).
  char scratch[] = "/tmp/ibex-sim.XXXXXX";
  int home = open(".", O_RDONLY | O_DIRECTORY);
  if (home < 0 || mkdtemp(scratch) == nullptr || chdir(scratch) != 0) {
    std::fprintf(stderr, "ibex-sim: cannot make a scratch folder in /tmp: %s\n", std::strerror(errno));
    return 1;
  }

  auto context = std::make_unique<VerilatedContext>();
  std::vector<std::string> plusargs = {"ibex-sim"};
  if (trace_base.empty()) {
    plusargs.push_back("+ibex_tracer_enable=0");  // the tracer formats every instruction: it halves the speed
  } else {
    plusargs.push_back("+ibex_tracer_enable=1");
    plusargs.push_back("+ibex_tracer_file_base=" + trace_base);
  }
  std::vector<const char *> plusargv;
  for (auto &text : plusargs) plusargv.push_back(text.c_str());
  context->commandArgs(static_cast<int>(plusargv.size()), plusargv.data());
  auto top = std::make_unique<Vibex_simple_system>(context.get(), "TOP");
  auto *root = top->rootp;

  // Reset: a falling edge, then a few cycles low, the program loaded while the core is held.
  // The edge matters: the core's clock is gated by flops that reset alone can clear, so
  // without an asynchronous reset its registers never see a clock while reset is held
  // (they start at zero: user mode, where every machine CSR access traps).
  top->IO_IRQ_SOFTWARE = 0;  // the lines the harness drives start low
  top->IO_IRQ_FAST = 0;
  top->IO_IRQ_NM = 0;
  top->IO_FETCH_WAIT_STATES = options.fetch_wait_states;
  top->IO_DATA_WAIT_STATES = options.data_wait_states;
  top->IO_RST_N = 1;
  top->eval();
  top->IO_RST_N = 0;
  top->eval();
  // the log is open now: its name can go, and a relative --trace path means the caller's folder
  std::remove("ibex_simple_system.log");
  if (fchdir(home) != 0 || rmdir(scratch) != 0)
    std::fprintf(stderr, "ibex-sim: note: could not remove the scratch folder %s\n", scratch);
  close(home);
  for (int i = 0; i < 4; ++i) {
    top->IO_CLK = 0;
    top->eval();
    top->IO_CLK = 1;
    top->eval();
  }
  write_ram(image);
  top->IO_CLK = 0;
  top->eval();
  top->IO_RST_N = 1;
  top->eval();

  const uint32_t *pc = &root->ibex_simple_system__DOT__u_top__DOT__rvfi_pc_rdata;
  const uint8_t *valid = &root->ibex_simple_system__DOT__u_top__DOT__rvfi_valid;
  const uint64_t *retire_cycle = &root->ibex_simple_system__DOT__u_top__DOT__rvfi_ext_mcycle;
  const uint8_t *ctrl_req = &root->ibex_simple_system__DOT__u_simulator_ctrl__DOT__req_i;
  const uint8_t *ctrl_we = &root->ibex_simple_system__DOT__u_simulator_ctrl__DOT__we_i;
  const uint8_t *ctrl_be = &root->ibex_simple_system__DOT__u_simulator_ctrl__DOT__be_i;
  const uint32_t *ctrl_addr = &root->ibex_simple_system__DOT__u_simulator_ctrl__DOT__addr_i;
  const uint32_t *ctrl_wdata = &root->ibex_simple_system__DOT__u_simulator_ctrl__DOT__wdata_i;

  const uint8_t *id_valid = &root->ibex_simple_system__DOT__u_top__DOT__u_ibex_top__DOT__u_ibex_core__DOT__instr_valid_id;
  const uint8_t *id_first =
      &root->ibex_simple_system__DOT__u_top__DOT__u_ibex_top__DOT__u_ibex_core__DOT__instr_first_cycle_id;
  const uint32_t *id_pc = &root->ibex_simple_system__DOT__u_top__DOT__u_ibex_top__DOT__u_ibex_core__DOT__pc_id;
  const uint8_t *trap_first = &root->ibex_simple_system__DOT__u_top__DOT__rvfi_intr;
  const uint8_t *rd_addr = &root->ibex_simple_system__DOT__u_top__DOT__rvfi_rd_addr;
  const uint32_t *rd_wdata = &root->ibex_simple_system__DOT__u_top__DOT__rvfi_rd_wdata;
  const uint8_t *mcause =
      &root->ibex_simple_system__DOT__u_top__DOT__u_ibex_top__DOT__u_ibex_core__DOT__cs_registers_i__DOT__mcause_q;
  const uint32_t *mepc =
      &root->ibex_simple_system__DOT__u_top__DOT__u_ibex_top__DOT__u_ibex_core__DOT__cs_registers_i__DOT__mepc_q;
  const uint64_t *mcycle =
      &root->ibex_simple_system__DOT__u_top__DOT__u_ibex_top__DOT__u_ibex_core__DOT__cs_registers_i__DOT__mhpmcounter[0];
  // the last few instructions to enter ID/EX and the cycle each entered at: RVFI reports
  // an instruction a stage or two after it left ID/EX, by then others have entered
  testbench::RecentInstructions<8> entered;
  bool was_first = false;
  uint32_t was_pc = 0;

  const bool following = !options.watches.empty() || options.follow_switches;  // cycles of instructions wanted
  const testbench::Code code{image, kRamBase};
  testbench::RetirementLog retirements(options, code, outputs.log, outputs.window_trace, read_ram);
  uint64_t cycle = 0, retired = 0;
  bool halted = false, stopped = false;
  unsigned exit_code = 0;
  // The interrupt lines: each level as it is in this cycle, set before the
  // rising edge that ends it (and evaluated, so that the cycle's logic sees it).
  bool soft_level = false, soft_next = false;  // SOFT_IRQ: a store takes effect the next cycle
  bool latency_armed = false, latency_nmi = false, latency_level = false, latency_lower_next = false;
  uint64_t latency_expiry = 0;  // the cycle (this loop's count) the armed timer raises its line in
  while (cycle < options.max_cycles && !context->gotFinish()) {
    bool lines_changed = false;
    if (soft_next != soft_level) {
      soft_level = soft_next;
      top->IO_IRQ_SOFTWARE = soft_level;
      lines_changed = true;
    }
    if (latency_lower_next) {
      latency_lower_next = false;
      if (latency_level) {
        latency_level = false;
        top->IO_IRQ_FAST = 0;
        top->IO_IRQ_NM = 0;
        lines_changed = true;
      }
    }
    bool asserted_now = latency_armed && cycle == latency_expiry;
    if (asserted_now) {
      latency_armed = false;
      latency_level = true;
      if (latency_nmi)
        top->IO_IRQ_NM = 1;
      else
        top->IO_IRQ_FAST = 1;
      lines_changed = true;
    }
    if (lines_changed) top->eval();
    if (asserted_now && !options.watches.empty()) retirements.assertion(*mcycle, *id_pc);
    // the simulator-control write the rising edge is about to take
    if (*ctrl_req && *ctrl_we && (*ctrl_be & 1)) {
      uint32_t offset = *ctrl_addr & 0x3FF;
      if (offset == kSoftIrqOffset) {
        soft_next = *ctrl_wdata & 1;
      } else if (offset == kLatencyOffset || offset == kLatencyNmiOffset) {
        latency_lower_next = latency_level;  // stopped or re-armed: the line falls from the next cycle
        latency_armed = *ctrl_wdata != 0;
        latency_nmi = offset == kLatencyNmiOffset;
        latency_expiry = cycle + *ctrl_wdata;
      } else if (offset == kOutputOffset) {
        std::fputc(static_cast<int>(*ctrl_wdata & 0xFF), stdout);
        if ((*ctrl_wdata & 0xFF) == '\n') std::fflush(stdout);
      } else if (offset == kPinOffset) {
        if (pin_log != nullptr)
          std::fprintf(pin_log, "%" PRIu64 " %s %u\n", cycle, options.pin_name.c_str(), *ctrl_wdata & 1);
      } else if (offset == kHaltOffset && (*ctrl_wdata & 1)) {
        halted = true;
        exit_code = (*ctrl_wdata >> 8) & 0xFF;
      }
    }
    // an instruction's first cycle in ID/EX (a stall can hold it there for more than one)
    if (following && *id_valid && *id_first && !(was_first && *id_pc == was_pc)) {
      entered.note(*id_pc, *mcycle);
    }
    was_first = *id_valid && *id_first;
    was_pc = *id_pc;
    top->IO_CLK = 1;
    top->eval();
    ++cycle;
    if (*valid) {
      ++retired;
      if (following) {
        // the cycle this instruction entered ID/EX at, or failing that the one it retired in
        uint64_t start = entered.cycle_of(*pc, *retire_cycle);
        stopped = !retirements.retire({*pc, start, *trap_first != 0, ((*mcause >> 5) & 3u) != 0, *mepc,
                                       *rd_addr == 1, *rd_wdata, false});
      }
    }
    top->IO_CLK = 0;
    top->eval();
    if (halted || stopped) break;
  }
  top->final();
  testbench::finish_run(kMachine, retirements, halted, exit_code, stopped, nullptr, context->gotFinish(), cycle,
                        retired);
  outputs.close();
  return halted || stopped ? 0 : 1;
}
