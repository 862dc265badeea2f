// What every core's testbench here shares: the command line, the ELF loaded as
// an image of one RAM, the program's code read back from that image, and the
// log of watched retirements (watches, --window-trace, --switch-word's trap
// flow, the latency timer's assertions). A core's testbench (harness.cc for
// Ibex, vexriscv.cc for VexRiscv) clocks its model, answers its buses and
// hands each retired instruction to RetirementLog::retire. Header only: each
// testbench is one compilation unit of its model's build.

#ifndef SWITCHSCOPE_TESTBENCH_H
#define SWITCHSCOPE_TESTBENCH_H

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include <elf.h>

namespace testbench {

// The testbench's name in its messages (ibex-sim, vexriscv-sim) and the RAM the program is loaded into.
struct Machine {
  const char *program;
  uint32_t ram_base, ram_size;
  const char *ram_hint;  // how to link for this RAM, for a refusal
};

[[noreturn]] inline void usage_error(const Machine &machine, const std::string &what, const std::string &fix) {
  std::fprintf(stderr, "%s: %s\nfix: %s\n", machine.program, what.c_str(), fix.c_str());
  std::exit(2);
}

struct Options {
  uint64_t max_cycles = 100'000'000;
  std::unordered_map<uint32_t, std::vector<std::string>> watches;
  std::string pin_name = "pin", pin_log_path;
  std::string log_path;  // empty: stderr
  std::string window_trace_path;
  uint64_t window = 0;
  std::string elf_path;
  uint64_t limit = 0, stop = 0;  // 0: none
  uint64_t parameters_at = 0;
  std::string parameters;
  bool has_parameters = false;
  bool follow_switches = false;
  std::vector<uint32_t> switch_path;  // the kernel's switching code: where a handler's flow enters it
  uint32_t switch_word = 0, switch_name_offset = 0, switch_name_bytes = 0;
  uint8_t fetch_wait_states = 0, data_wait_states = 0;  // the RAM's: each access held N cycles more
};

inline uint64_t parse_number(const Machine &machine, const std::string &text, const char *what) {
  char *end = nullptr;
  errno = 0;
  unsigned long long value = std::strtoull(text.c_str(), &end, 0);
  if (text.empty() || *end != '\0' || errno != 0 || text[0] == '-')
    usage_error(machine, std::string(what) + " '" + text + "' is not a number", "give a decimal or 0x-prefixed number");
  return value;
}

// A core's own options: given the option and a way to take its value, true if it was one of them.
using OwnOption = std::function<bool(const std::string &argument, const std::function<std::string()> &value)>;

inline Options parse_options(const Machine &machine, int argc, char **argv, const OwnOption &own,
                             const char *own_names) {
  Options options;
  const uint64_t ram_end = uint64_t(machine.ram_base) + machine.ram_size;
  for (int i = 1; i < argc; ++i) {
    std::string argument = argv[i];
    std::function<std::string()> value = [&]() -> std::string {
      if (i + 1 >= argc) usage_error(machine, argument + " needs a value", "see the usage at the top of the testbench");
      return argv[++i];
    };
    auto number = [&](const char *what) { return parse_number(machine, value(), what); };
    if (argument == "--max-cycles") {
      options.max_cycles = number("--max-cycles");
    } else if (argument == "--watch") {
      std::string watch = value();
      size_t equals = watch.find('=');
      if (equals == std::string::npos || equals == 0)
        usage_error(machine, "--watch '" + watch + "' is not NAME=ADDRESS", "e.g. --watch start=0x100100");
      uint64_t address = parse_number(machine, watch.substr(equals + 1), "--watch address");
      if (address > UINT32_MAX) usage_error(machine, "--watch address past 32 bits: " + watch, "give a 32-bit address");
      options.watches[static_cast<uint32_t>(address)].push_back(watch.substr(0, equals));
    } else if (argument == "--log") {
      options.log_path = value();
    } else if (argument == "--pin") {
      options.pin_name = value();
    } else if (argument == "--pin-log") {
      options.pin_log_path = value();
    } else if (argument == "--limit") {
      options.limit = number("--limit");
    } else if (argument == "--stop") {
      options.stop = number("--stop");
    } else if (argument == "--parameters-at") {
      options.parameters_at = number("--parameters-at");
    } else if (argument == "--parameters") {
      options.parameters = value();
      options.has_parameters = true;
    } else if (argument == "--window-trace") {
      options.window_trace_path = value();
    } else if (argument == "--switch-word") {
      uint64_t address = number("--switch-word");
      if (address < machine.ram_base || address + 4 > ram_end)
        usage_error(machine, "--switch-word is not an address in the RAM", "give the current-task variable's address");
      options.switch_word = static_cast<uint32_t>(address);
      options.follow_switches = true;
    } else if (argument == "--switch-path") {
      uint64_t address = number("--switch-path");
      if (address > UINT32_MAX) usage_error(machine, "--switch-path address past 32 bits", "give a 32-bit address");
      options.switch_path.push_back(static_cast<uint32_t>(address));
    } else if (argument == "--switch-name") {
      std::string name = value();
      size_t colon = name.find(':');
      if (colon == std::string::npos)
        usage_error(machine, "--switch-name '" + name + "' is not OFFSET:BYTES", "e.g. --switch-name 52:16");
      options.switch_name_offset =
          static_cast<uint32_t>(parse_number(machine, name.substr(0, colon), "--switch-name offset"));
      options.switch_name_bytes =
          static_cast<uint32_t>(parse_number(machine, name.substr(colon + 1), "--switch-name bytes"));
      if (options.switch_name_bytes < 1 || options.switch_name_bytes > 32)
        usage_error(machine, "--switch-name reads 1 to 32 bytes, not " + name.substr(colon + 1),
                    "e.g. --switch-name 52:16");
    } else if (argument == "--window") {
      options.window = number("--window");
    } else if (argument == "--fetch-wait-states" || argument == "--data-wait-states") {
      uint64_t wait_states = number(argument.c_str());
      if (wait_states > UINT8_MAX)
        usage_error(machine, argument + " takes 0 to 255", "give a number of wait states the RAM holds each access");
      (argument == "--fetch-wait-states" ? options.fetch_wait_states : options.data_wait_states) =
          static_cast<uint8_t>(wait_states);
    } else if (own(argument, value)) {
    } else if (!argument.empty() && argument[0] == '-') {
      usage_error(machine, "unknown option " + argument,
                  std::string("the options are --max-cycles, --watch, --log, --limit, --stop, --parameters-at, "
                              "--parameters, --pin, --pin-log, ") + own_names +
                      "--window-trace, --window, --switch-word, --switch-name, --switch-path, --fetch-wait-states "
                      "and --data-wait-states");
    } else if (options.elf_path.empty()) {
      options.elf_path = argument;
    } else {
      usage_error(machine, "more than one program given", "give one ELF file");
    }
  }
  if (options.elf_path.empty())
    usage_error(machine, "no program given", std::string(machine.program) + " [options] PROGRAM.elf");
  if (options.switch_name_bytes && !options.follow_switches)
    usage_error(machine, "--switch-name needs --switch-word", "give the current-task variable's address too");
  if (options.has_parameters &&
      (options.parameters_at < machine.ram_base || options.parameters_at + options.parameters.size() + 1 > ram_end))
    usage_error(machine, "--parameters needs --parameters-at inside the RAM", "give the address of the board's buffer");
  return options;
}

// The ELF's loadable segments as an image of the RAM (words, zero where nothing is loaded),
// with the parameters written into it where the options ask.
inline std::vector<uint32_t> load_elf(const Machine &machine, const Options &options, uint32_t *entry) {
  const std::string &path = options.elf_path;
  std::ifstream file(path, std::ios::binary);
  if (!file) usage_error(machine, "cannot open " + path + ": " + std::strerror(errno), "give an existing ELF file");
  std::vector<char> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  auto *header = reinterpret_cast<const Elf32_Ehdr *>(bytes.data());
  if (bytes.size() < sizeof(Elf32_Ehdr) || std::memcmp(header->e_ident, ELFMAG, SELFMAG) != 0 ||
      header->e_ident[EI_CLASS] != ELFCLASS32 || header->e_ident[EI_DATA] != ELFDATA2LSB ||
      header->e_machine != EM_RISCV)
    usage_error(machine, path + " is not a 32-bit little-endian RISC-V ELF", "build it with -mabi=ilp32 for RV32");
  if (header->e_phoff + uint64_t(header->e_phnum) * sizeof(Elf32_Phdr) > bytes.size())
    usage_error(machine, path + " is truncated (its program headers run past its end)", "rebuild it");
  std::vector<uint32_t> image(machine.ram_size / 4, 0);
  auto *ram = reinterpret_cast<uint8_t *>(image.data());
  for (unsigned i = 0; i < header->e_phnum; ++i) {
    auto *segment = reinterpret_cast<const Elf32_Phdr *>(bytes.data() + header->e_phoff + i * sizeof(Elf32_Phdr));
    if (segment->p_type != PT_LOAD || segment->p_memsz == 0) continue;
    uint64_t start = segment->p_paddr, end = start + segment->p_memsz;
    if (start < machine.ram_base || end > uint64_t(machine.ram_base) + machine.ram_size) {
      char message[160];
      std::snprintf(message, sizeof message, "%s loads 0x%08" PRIx64 "..0x%08" PRIx64 ", outside the RAM 0x%08x..0x%08x",
                    path.c_str(), start, end, machine.ram_base, machine.ram_base + machine.ram_size);
      usage_error(machine, message, machine.ram_hint);
    }
    if (uint64_t(segment->p_offset) + segment->p_filesz > bytes.size() || segment->p_filesz > segment->p_memsz)
      usage_error(machine, path + " is truncated (a segment runs past its end)", "rebuild it");
    std::memcpy(ram + (start - machine.ram_base), bytes.data() + segment->p_offset, segment->p_filesz);
  }
  *entry = header->e_entry;
  if (options.has_parameters)
    std::memcpy(ram + (options.parameters_at - machine.ram_base), options.parameters.c_str(),
                options.parameters.size() + 1);
  return image;
}

inline FILE *open_output(const Machine &machine, const std::string &path) {
  FILE *file = std::fopen(path.c_str(), "w");
  if (file == nullptr) usage_error(machine, "cannot write " + path + ": " + std::strerror(errno), "give a writable path");
  return file;
}

// Where the logs go: the watch log (stderr without --log), --window-trace's, --pin-log's.
struct Outputs {
  FILE *log = stderr, *window_trace = nullptr, *pin_log = nullptr;

  Outputs(const Machine &machine, const Options &options) {
    if (!options.log_path.empty() && options.log_path != "-") log = open_output(machine, options.log_path);
    if (!options.window_trace_path.empty()) {
      if (options.watches.empty())
        usage_error(machine, "--window-trace needs the watches named from and to",
                    "add --watch from=ADDRESS --watch to=ADDRESS");
      window_trace = open_output(machine, options.window_trace_path);
    }
    if (!options.pin_log_path.empty()) pin_log = open_output(machine, options.pin_log_path);
  }

  void close() {
    if (log != stderr) std::fclose(log);
    if (pin_log != nullptr) std::fclose(pin_log);
    if (window_trace != nullptr) std::fclose(window_trace);
  }
};

// The few instructions a core last moved past a stage of its pipeline, each with the cycle it did: a
// retirement a stage or more later finds its own cycle there.
template <unsigned kSize>
class RecentInstructions {
 public:
  void note(uint32_t pc, uint64_t cycle) {
    pc_[next_ % kSize] = pc;
    cycle_[next_ % kSize] = cycle;
    ++next_;
  }

  // The cycle of the latest noted at `pc`, or `otherwise`.
  uint64_t cycle_of(uint32_t pc, uint64_t otherwise) const {
    for (unsigned back = 1; back <= kSize && back <= next_; ++back) {
      unsigned slot = (next_ - back) % kSize;
      if (pc_[slot] == pc) return cycle_[slot];
    }
    return otherwise;
  }

 private:
  uint32_t pc_[kSize] = {};
  uint64_t cycle_[kSize] = {};
  unsigned next_ = 0;
};

// The program's code as loaded: what nothing rewrites.
struct Code {
  const std::vector<uint32_t> &image;
  uint32_t base;

  // The 32 bits at `pc` (an instruction is 2-byte aligned), 0 outside the RAM.
  uint32_t at(uint32_t pc) const {
    if (pc < base || uint64_t(pc) + 4 > uint64_t(base) + image.size() * 4) return 0;
    uint32_t offset = pc - base;
    uint32_t word = image[offset / 4] >> (8 * (offset % 4));
    if (offset % 4) word |= image[offset / 4 + 1] << (32 - 8 * (offset % 4));
    return word;
  }

  // Where the instruction at `pc` jumps to, if it is a jump that links nothing
  // (a vector's `j`: jal x0, or c.j); else `pc` itself.
  uint32_t jump_target(uint32_t pc) const {
    uint32_t word = at(pc);
    auto bit = [&](unsigned i) { return (word >> i) & 1u; };
    if ((word & 3u) == 3u) {
      if ((word & 0x7Fu) != 0x6Fu || ((word >> 7) & 0x1Fu) != 0) return pc;  // not jal x0
      int32_t offset = static_cast<int32_t>((bit(31) << 20) | (((word >> 21) & 0x3FFu) << 1) | (bit(20) << 11) |
                                            (((word >> 12) & 0xFFu) << 12));
      if (offset & (1 << 20)) offset -= 1 << 21;
      return pc + static_cast<uint32_t>(offset);
    }
    if ((word & 0xE003u) != 0xA001u) return pc;  // not c.j
    int32_t offset = static_cast<int32_t>((bit(12) << 11) | (bit(11) << 4) | (bit(10) << 9) | (bit(9) << 8) |
                                          (bit(8) << 10) | (bit(7) << 6) | (bit(6) << 7) | (((word >> 3) & 7u) << 1) |
                                          (bit(2) << 5));
    if (offset & (1 << 11)) offset -= 1 << 12;
    return pc + static_cast<uint32_t>(offset);
  }

  bool is_mret(uint32_t pc) const { return at(pc) == 0x30200073u; }
};

// One retired instruction as the core reports it.
struct Retired {
  uint32_t pc;
  uint64_t start;           // its cycle in the log (the testbench's own reading: see its usage)
  bool trap_first;          // a trap handler's first instruction
  bool interrupt;           // ... entered by an interrupt (mcause's top bit)
  uint32_t mepc;            // the trap's mepc, where trap_first
  bool writes_ra;           // it wrote ra (x1) ...
  uint32_t ra;              // ... this value
  bool fetch_missed;        // its fetch missed an instruction cache (--window-trace says so before it)
};

// The log of watched retirements: the watch lines, --limit and --stop, --window-trace, the trap flow of
// --switch-word, and the latency timer's raisings in their place among them (the log is in cycle order).
class RetirementLog {
 public:
  RetirementLog(const Options &options, const Code &code, FILE *log, FILE *window_trace,
                std::function<uint32_t(uint32_t)> read_word)
      : options_(options), code_(code), log_(log), window_trace_(window_trace), read_word_(std::move(read_word)) {}

  // The latency timer's line rose at `cycle` with the instruction at `pc` about to start.
  void assertion(uint64_t cycle, uint32_t pc) {
    pending_ = true;
    assertion_cycle_ = cycle;
    std::snprintf(assertion_text_, sizeof assertion_text_, "assert@%x", pc);
  }

  // An instruction retired: false once the run is to stop (--limit, --stop).
  bool retire(const Retired &instruction) {
    if (options_.follow_switches && !follow(instruction)) return false;
    bool more = true;
    auto found = options_.watches.find(instruction.pc);
    if (found != options_.watches.end()) {
      // an assertion in or before this instruction's first cycle goes before it (an instruction is logged
      // when it retires, with the cycle it started in, which may come after an assertion in one of its later
      // cycles, logged here after it)
      if (pending_ && assertion_cycle_ <= instruction.start) {
        pending_ = false;
        if (!line(assertion_cycle_, assertion_text_)) return false;
      }
      for (const std::string &name : found->second) {
        bool opens = name == "from" || name == "open", closes = name == "to" || name == "close";
        if (window_trace_ != nullptr && opens && opened_++ == options_.window) {
          tracing_ = true;
        } else if (tracing_ && closes) {
          std::fprintf(window_trace_, "%" PRIu64 " end\n", instruction.start);
          tracing_ = false;
        }
        if (!line(instruction.start, name.c_str())) {
          more = false;
          break;
        } else if (name == "from") {
          interval_open_ = true;
        } else if (options_.stop && !options_.follow_switches && interval_open_ && name == "to") {
          interval_open_ = false;
          if (++intervals_ == options_.stop) {
            more = false;
            break;
          }
        }
      }
    }
    if (tracing_ && instruction.fetch_missed) std::fprintf(window_trace_, "%" PRIu64 " f icache-miss 0\n", instruction.start);
    if (tracing_) std::fprintf(window_trace_, "%" PRIu64 " i %x\n", instruction.start, instruction.pc);
    return more;
  }

  // The run ended by itself: an assertion not yet logged goes last.
  void finish() {
    if (pending_) line(assertion_cycle_, assertion_text_);
  }

 private:
  bool line(uint64_t at, const char *text) {  // false once --limit is reached
    std::fprintf(log_, "%" PRIu64 " %s\n", at, text);
    if (options_.limit && ++logged_ == options_.limit) {
      std::fprintf(log_, "%" PRIu64 " limit\n", at);
      return false;
    }
    return true;
  }

  bool on_switch_path(uint32_t address) const {
    return options_.switch_path.empty() ||
           std::find(options_.switch_path.begin(), options_.switch_path.end(), address) != options_.switch_path.end();
  }

  // --switch-word: where the trap flow stands
  bool follow(const Retired &instruction) {
    char text[128];
    const uint32_t pc = instruction.pc;
    uint32_t word = read_word_(options_.switch_word);
    bool more = true;
    if (instruction.trap_first) {  // a handler's first instruction: the vector
      uint32_t handler = code_.jump_target(pc);
      const char *kind = returning_ ? "chain" : in_handler_ ? "nest" : "entry";
      if (!in_handler_) entry_word_ = word;
      if (returning_ || in_handler_) {
        std::snprintf(text, sizeof text, "%s@%x:%x", kind, instruction.interrupt ? pc : handler, word);
      } else {
        std::snprintf(text, sizeof text, "entry@%x:%x:%x:%x", instruction.interrupt ? pc : handler, word,
                      instruction.mepc, ra_);
      }
      more = line(instruction.start, text);
      flow_at_ = instruction.interrupt ? 0 : handler;
      if (more && instruction.interrupt && on_switch_path(handler)) {  // which interrupt, then its handler
        std::snprintf(text, sizeof text, "chain@%x:%x", handler, word);
        more = line(instruction.start, text);
        flow_at_ = handler;
      }
      in_handler_ = true;
      returning_ = false;
    } else if (in_handler_ && !returning_ && pc != flow_at_ && !options_.switch_path.empty() && on_switch_path(pc)) {
      flow_at_ = pc;  // the kernel's switching code, reached from a board's entry
      std::snprintf(text, sizeof text, "chain@%x:%x", pc, word);
      more = line(instruction.start, text);
    } else if (returning_) {  // the first instruction after an mret
      returning_ = in_handler_ = false;
      int length = std::snprintf(text, sizeof text, "resume@%x:%x", pc, word);
      if (options_.switch_name_bytes) {
        length += std::snprintf(text + length, sizeof text - length, ":");
        for (uint32_t i = 0; i < options_.switch_name_bytes; ++i) {
          uint32_t at = word + options_.switch_name_offset + i;
          uint8_t byte = static_cast<uint8_t>(read_word_(at & ~3u) >> (8 * (at & 3u)));
          if (byte == 0) break;
          length += std::snprintf(text + length, sizeof text - length, "%02x", byte);
        }
      }
      more = line(instruction.start, text) && !(options_.stop && word != entry_word_ && ++switches_ == options_.stop);
    }
    if (code_.is_mret(pc)) returning_ = true;
    if (instruction.writes_ra) ra_ = instruction.ra;
    return more;
  }

  const Options &options_;
  const Code &code_;
  FILE *log_, *window_trace_;
  std::function<uint32_t(uint32_t)> read_word_;
  uint64_t logged_ = 0, intervals_ = 0, opened_ = 0, switches_ = 0;
  bool interval_open_ = false, tracing_ = false;
  bool pending_ = false;  // a raising of the latency line not yet logged
  uint64_t assertion_cycle_ = 0;
  char assertion_text_[32] = {};
  bool in_handler_ = false, returning_ = false;  // a trap taken and not yet returned from; an mret just retired
  uint32_t ra_ = 0, entry_word_ = 0;
  uint32_t flow_at_ = 0;  // the switching code this trap's flow was last logged entering (0: none yet)
};

// The run's end: the log's last assertion if the run ended by itself, the program's output flushed, and the
// last line on stderr, which says how it ended (run/verilator.py reads it): halted (with the program's exit
// code), stopped (--stop, --limit), `other` if the testbench tells another reason, or the model's own end or
// the cycle bound.
inline void finish_run(const Machine &machine, RetirementLog &retirements, bool halted, unsigned exit_code,
                       bool stopped, const char *other, bool model_finished, uint64_t cycles, uint64_t retired) {
  if (!stopped) retirements.finish();
  std::fflush(stdout);
  char how[48];
  if (halted)
    std::snprintf(how, sizeof how, "halted code=%u", exit_code);
  else
    std::snprintf(how, sizeof how, "%s", stopped  ? "stop or limit reached"
                                         : other ? other
                                                 : (model_finished ? "the model finished" : "cycle bound reached"));
  std::fprintf(stderr, "%s: %s after %" PRIu64 " cycles, %" PRIu64 " instructions retired\n", machine.program, how,
               cycles, retired);
}

}  // namespace testbench

#endif
