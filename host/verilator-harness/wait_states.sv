// A memory's wait states on one of the core's request/grant ports: a request
// to the slow memory is granted only after it has been held for
// `wait_states_i` cycles, and the memory, which answers one cycle after its
// grant (simple_system's RAM), answers it that much later. Ibex holds a
// request and its address until the grant (its bus protocol), so the core's
// own fetch and load-store logic decide what the wait costs: its prefetch
// buffer may have a second fetch under way, its pipeline stalls on a load.
// With 0 every request is granted at once, as simple_system's memory does.
module switchscope_wait_states (
  input  logic       clk_i,
  input  logic       rst_ni,
  input  logic       req_i,          // the core's request, held until granted
  input  logic       slow_i,         // the request is to the memory that waits
  input  logic [7:0] wait_states_i,  // the harness's setting, constant through a run
  output logic       ready_o         // the memory may take the request in this cycle
);
  logic [7:0] waited_q;

  assign ready_o = !slow_i || waited_q >= wait_states_i;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      waited_q <= '0;
    end else if (!req_i || ready_o) begin
      waited_q <= '0;  // granted, or no request: the next one waits in full
    end else begin
      waited_q <= waited_q + 8'd1;
    end
  end
endmodule
