// The parameter dialog as an MCP elicitation form (form mode), for a run
// started by an MCP client that offers elicitation: the dialog's fields come
// from the stage table (each field's type, default, range and choices), with
// the CPUs and the output prefix (one choice: the plan fixes it). Two ways to
// ask, by the client channel's kind:
//
//  * a client that waits for answers (2025-11-25 sessions, 2026-07-28 tasks):
//    the run starts unconfirmed and the form is its dialog; the answer goes to
//    the run service (confirm, modify, cancel) and no answer within the
//    dialog's time leaves the defaults to the service's countdown;
//  * a client whose calls replay (2026-07-28 round trips): the form is asked
//    before anything starts, and the replayed call starts the run confirmed
//    with the answer, so one call never starts two runs.
#pragma once

#include "bioagent/client_channel.h"
#include "bioagent/runs.h"

namespace bioagent {

struct DialogForm {
  std::string message;  // what the form says: species, family, the prefix, what no answer means
  Json schema;          // the requestedSchema: a flat object of primitive properties
  Json shown;           // the values it offers (the dialog's view)
};

// The form of a dialog view with its display fields (RunService::start's and status' "params");
// `countdown`: the run waits `timeout_seconds` for it, then takes the defaults.
DialogForm dialog_form(const Json& shown, int cpu_limit, int timeout_seconds, bool countdown, Lang lang);

// What the dialog of a run not yet started shows: the species (prefix, and its name when known),
// the family, and the server's parameters with `given` (any RunParams form) over them.
Result<Json> dialog_preview(const RunService& runs, const std::string& prefix, const std::string& species_name,
                            const std::string& family, const Json& given);

struct DialogAnswer {
  std::string said;              // the client's action: accept, decline or cancel
  std::string action;            // the dialog's: confirm (nothing changed), modify or cancel
  Json params = Json::object();  // modify: the fields the user changed, flat ({"evalue": 1e-10, "cpu": 2})
};
// The form's answer (an ElicitResult) as the dialog's; invalid argument naming the field when
// a value does not fit the form.
Result<DialogAnswer> dialog_answer(const Json& elicit_result, const DialogForm& form);

// `given` (any RunParams form) with the answer's values over it, as a client gives parameters
// ({stage: {...}, "cpus": n}).
Result<Json> params_with_answer(const Json& given, const DialogAnswer& answer, int cpu_limit);

// A run not yet started: its form asked first (a client whose calls replay). The answer, or the
// channel's status (input required: the call ends here and runs again with the answer).
Result<DialogAnswer> ask_dialog_first(ClientChannel& channel, const Json& shown, int cpu_limit, Lang lang);

// A started task's dialog (RunService::start's result) asked as a form through a client that waits
// for answers, waiting at most the dialog's time; the answer goes to the run service. What
// happened: {asked: "elicitation", answer: accept|decline|cancel|none, action?, params?, note}.
Json confirm_by_form(RunService& runs, ClientChannel& channel, const std::string& owner, const Json& started,
                     Lang lang);

// The sentence a chat turn or a tool result says about the form's outcome ({asked, answer, action, params}).
std::string dialog_outcome_text(const Json& outcome, Lang lang);

}  // namespace bioagent
