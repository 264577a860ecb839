//! The client's commands, one file per family, each answering its commands as the reference
//! answers them (worded and ordered alike); this file is the dispatch table. A family whose
//! work outlives the command (a compaction, a `bash` command, a session replacement) keeps
//! that work in its own file of the actor (`compaction.rs`, `ops/bash.rs`, `replace.rs`); the
//! command's entry point here hands it over.

mod abort;
mod bash;
mod compact;
mod export;
mod model;
mod prompt;
mod queue;
mod retry;
mod session;
mod slash_commands;
mod state;
mod stats;

use pi_rpc_protocol::Request;
use pi_rpc_protocol::command::Command;

use crate::actor::State;

impl State {
    /// Answers one command (now, or once what it waits for is done).
    pub(in crate::actor) fn handle_command(&mut self, request: Request) {
        let Request { id, command } = request;
        match command {
            Command::Prompt(prompt) => self.prompt_command(id, prompt),
            Command::Steer(queued) => self.steer_command(id, queued),
            Command::FollowUp(queued) => self.follow_up_command(id, queued),
            Command::SetSteeringMode(set) => self.set_steering_mode_command(id, set),
            Command::SetFollowUpMode(set) => self.set_follow_up_mode_command(id, set),
            Command::ClearQueue(_) => self.clear_queue_command(id),
            Command::Abort(_) => self.abort_command(id),
            Command::AbortRetry(_) => self.abort_retry_command(id),
            Command::SetAutoRetry(set) => self.set_auto_retry_command(id, set),
            Command::NewSession(new_session) => self.new_session_command(id, new_session),
            Command::SwitchSession(switch) => self.switch_session_command(id, switch),
            Command::Fork(fork) => self.fork_command(id, fork),
            Command::Clone(_) => self.clone_command(id),
            Command::SetSessionName(set) => self.set_session_name_command(id, set),
            Command::GetState(_) => self.get_state_command(id),
            Command::GetMessages(_) => self.get_messages_command(id),
            Command::GetLastAssistantText(_) => self.get_last_assistant_text_command(id),
            Command::GetEntries(get) => self.get_entries_command(id, get),
            Command::GetTree(_) => self.get_tree_command(id),
            Command::GetForkMessages(_) => self.get_fork_messages_command(id),
            Command::GetSessionStats(_) => self.get_session_stats_command(id),
            Command::GetAvailableModels(_) => self.get_available_models_command(id),
            Command::SetModel(set) => self.set_model_command(id, set),
            Command::CycleModel(_) => self.cycle_model_command(id),
            Command::GetAvailableThinkingLevels(_) => {
                self.get_available_thinking_levels_command(id);
            }
            Command::SetThinkingLevel(set) => self.set_thinking_level_command(id, set),
            Command::CycleThinkingLevel(_) => self.cycle_thinking_level_command(id),
            // Entry points kept beside their operation: `compaction.rs` and `ops/bash.rs`.
            Command::Compact(compact) => self.compact_command(id, compact.custom_instructions),
            Command::SetAutoCompaction(set) => self.set_auto_compaction_command(id, set),
            Command::Bash(bash) => self.user_bash(id, bash),
            Command::AbortBash(_) => self.abort_bash_command(id),
            Command::ExportHtml(export) => self.export_html_command(id, export),
            Command::GetCommands(_) => self.get_commands_command(id),
        }
    }
}
