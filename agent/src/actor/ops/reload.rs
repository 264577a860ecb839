//! A command's `ctx.reload()`, and the restart every session change ends with (a replacement
//! hands over to it once the session is swapped and the files are read again): the extensions
//! are loaded afresh, then their `session_start` handlers run, then the change is answered.
//!
//! `ctx.reload()` (`Reload`, kept by key while its shutdown handlers run):
//!
//! | state | input | next | what happens |
//! |---|---|---|---|
//! | requested | another change answers the host, or one reloads the extensions | answered | `false` at once |
//! | requested | some extension handles `session_shutdown` | `ShutdownHandlers` | `session_shutdown` (reason `reload`) |
//! | requested, `ShutdownHandlers` | (the handlers are done) | `Restart(Reloading)` | settings, prompt templates, skills and the system prompt's sources read again; the extensions found again, their modules evaluated and loaded afresh; `false` when the host is gone or refuses |
//!
//! The restart (`Restart`, shared with `replacement.rs`), answering `data`:
//!
//! | state | input | next | what happens |
//! |---|---|---|---|
//! | `Reloading` | the host's `Loaded` (the oldest reloading restart takes it) | `StartHandlers(n)` | registrations, tools and model state sent again |
//! | `Reloading` | the host ended | `StartHandlers(n)` | |
//! | `StartHandlers(n)` | a `ctx.newSession` `setup` waits (first time only) | `StartHandlers(n)` | `session_setup` to the host, which runs it; the entries it appended added to the session, the conversation rebuilt from it (the host ended: none) |
//! | `StartHandlers(n > 0)` | | `Discover(n - 1)` | `session_start` (reason, previous file) when some extension handles it; waits for its handlers |
//! | `Discover(n)` | some extension handles `resources_discover` | `StartHandlers(n)` | `resources_discover` (reason `reload` for `ctx.reload()`, else `startup`); waits for its answer, whose skills and prompt templates are added |
//! | `Discover(n)` | otherwise | `StartHandlers(n)` | |
//! | `StartHandlers(0)` | | answered | the client's command, or the host's call with `data` |
//!
//! `n` is 2 for a client's command (the reference starts the new instances and then rebinds
//! the RPC mode's session) and 1 for a command's `ctx` call or `ctx.reload()`. Lines wait while
//! a restart is `Reloading`.

use serde_json::Value;

use super::gates::Gates;
use super::ids::{Answer, OpKey, OpRoute};
use crate::actor::State;
use crate::actor::outbox::IfLost;
use crate::extensions::{
    HostEvent, ProviderRegistration, RegisteredCommand, RegisteredTool, ReplyValue, SetupResult,
};

/// Where a restart is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RestartState {
    /// The extensions are being loaded afresh.
    Reloading,
    /// `session_start` goes to the new instances `left` more times.
    StartHandlers { left: u8 },
    /// `resources_discover` follows the `session_start` just emitted; then `left` more.
    Discover { left: u8 },
}

/// The end of a session change: extensions loaded afresh, their `session_start` handlers,
/// the answer.
#[derive(Debug)]
pub(in crate::actor) struct Restart {
    state: RestartState,
    answer: Answer,
    /// What the answer carries.
    data: Value,
    /// The `session_start` event's reason and the session file left.
    reason: &'static str,
    previous: Option<String>,
    /// The token of a `ctx.newSession` `setup` to run before `session_start`.
    setup: Option<String>,
}

impl Restart {
    /// A restart whose extensions are being loaded afresh.
    pub(in crate::actor) fn reloading(
        answer: Answer,
        data: Value,
        reason: &'static str,
        previous: Option<String>,
    ) -> Self {
        Self {
            state: RestartState::Reloading,
            answer,
            data,
            reason,
            previous,
            setup: None,
        }
    }

    /// The restart of a `ctx.newSession` whose `setup` (named by its token) runs first.
    pub(in crate::actor) fn with_setup(mut self, setup: Option<String>) -> Self {
        self.setup = setup;
        self
    }

    /// Whom it answers.
    pub(in crate::actor) fn answer(&self) -> &Answer {
        &self.answer
    }

    /// Whether the extensions are being loaded afresh.
    pub(in crate::actor) fn is_reloading(&self) -> bool {
        self.state == RestartState::Reloading
    }

    /// The extensions are loaded: `session_start` goes to them as often as the answer says.
    fn loaded(&mut self) {
        let left = match self.answer {
            Answer::Client(..) => 2,
            Answer::Host(_) => 1,
        };
        self.state = RestartState::StartHandlers { left };
    }

    /// Lines wait while the extensions are loaded afresh.
    pub(in crate::actor) fn gates(&self) -> Gates {
        if self.is_reloading() {
            Gates::NO_LINES
        } else {
            Gates::OPEN
        }
    }
}

/// A `ctx.reload()` whose `session_shutdown` handlers run (its host reply id).
#[derive(Debug)]
pub(in crate::actor) struct Reload {
    reply: String,
}

impl State {
    /// A command's `ctx.reload()`.
    pub(in crate::actor) fn command_reload(&mut self, reply: String) {
        let busy = self.extensions.is_none()
            || self.ops.answers_host()
            || self.ops.restarts.values().any(Restart::is_reloading);
        if busy {
            self.reply_to_host(&reply, false);
            return;
        }
        let key = self.ops.key();
        let event = HostEvent::SessionShutdown {
            reason: "reload",
            target_session_file: None,
        };
        self.ops.reloads.insert(
            key,
            Reload {
                reply: reply.clone(),
            },
        );
        if self.send_op_event(OpRoute::Reload(key), &event) {
            return;
        }
        self.reload_shutdown_done(key);
    }

    /// The `session_shutdown` handlers of `ctx.reload()` are done: the extensions are loaded
    /// afresh.
    pub(in crate::actor) fn reload_shutdown_done(&mut self, key: OpKey) {
        let Some(Reload { reply }) = self.ops.reloads.remove(&key) else {
            return;
        };
        self.read_files_again();
        let restart = Restart::reloading(Answer::Host(reply.clone()), Value::Null, "reload", None);
        let live = self
            .extensions
            .as_mut()
            .filter(|ext| ext.live_host().is_some());
        let Some(ext) = live else {
            self.reply_to_host(&reply, false);
            return;
        };
        match ext.host_mut().reload(true) {
            Ok(line) => {
                self.ops.restarts.insert(key, restart);
                self.push_host(line, IfLost::Reload(key));
            }
            Err(error) => {
                tracing::error!(%error, "cannot reload the extensions");
                self.reply_to_host(&reply, false);
            }
        }
    }

    /// What `ctx.reload()` and a session replacement read again besides the extensions, as the
    /// reference's reload and its new session's runtime: the settings (the queue modes and
    /// automatic compaction they set, and the resources they name), then the prompt templates,
    /// the skills and the system prompt's sources (`SYSTEM.md`, `APPEND_SYSTEM.md`, the context
    /// files). The tool selection is the restart's to decide; `models.json` is not read again
    /// (as in the reference's reload; its replacement reads it).
    pub(in crate::actor) fn read_files_again(&mut self) {
        let trusted = self.resource_options.project_trust.unwrap_or(false);
        let (agent_dir, cwd) = (&self.config.agent_dir, &self.config.cwd);
        let settings = crate::config::Settings::load(agent_dir, cwd, trusted);
        for warning in &settings.warnings {
            tracing::warn!(%warning, "reading the settings again");
        }
        self.steering_mode = settings.steering_mode();
        self.follow_up_mode = settings.follow_up_mode();
        self.auto_compaction = settings.compaction_enabled();
        self.config.settings = settings;
        let tools = std::mem::take(&mut self.resources.tools);
        self.resources = crate::resources::Resources::discover(
            &self.config.cwd,
            &self.config.agent_dir,
            self.resource_options.clone(),
        );
        self.resources.tools = tools;
    }

    /// The reload of `ctx.reload()` did not reach the host: the call is answered `false`.
    pub(in crate::actor) fn reload_not_sent(&mut self, key: OpKey) {
        if let Some(Restart {
            answer: Answer::Host(reply),
            ..
        }) = self.ops.restarts.remove(&key)
        {
            self.reply_to_host(&reply, false);
        }
    }

    /// The extensions are loaded afresh (`Loaded` from the host): the oldest reloading restart
    /// goes on. The providers their factories registered are applied as the reference does:
    /// over the registry as it is for `ctx.reload()` (what was registered later stays), over
    /// the registry as its files make it for a session replacement (the reference builds a new
    /// one).
    pub(in crate::actor) fn reloaded(
        &mut self,
        commands: Vec<RegisteredCommand>,
        tools: &[RegisteredTool],
        events: Vec<String>,
        providers: &[ProviderRegistration],
        error: Option<String>,
    ) {
        let reloading = self
            .ops
            .restarts
            .iter()
            .find_map(|(key, restart)| restart.is_reloading().then_some(*key));
        let (Some(key), true) = (reloading, self.extensions.is_some()) else {
            tracing::warn!("the extension host reported loading unasked");
            return;
        };
        if let Some(error) = error {
            tracing::error!(%error, "the extensions failed to load again");
        }
        let replaced = self
            .ops
            .restarts
            .get(&key)
            .is_some_and(|restart| restart.reason != "reload");
        let active_before = self.active_tool_names();
        let Some(ext) = &mut self.extensions else {
            return;
        };
        ext.host_mut().loaded(commands, tools, events);
        if replaced {
            self.config.registry.clear_extension_providers();
        }
        for refused in crate::extensions::apply_providers(providers, &mut self.config.registry) {
            tracing::error!(error = %refused, "a provider the extensions registered again");
        }
        if replaced {
            self.reset_active_tools();
        } else {
            self.keep_active_tools(active_before);
        }
        self.send_tools_state();
        self.send_slash_commands();
        self.providers_changed();
        if let Some(restart) = self.ops.restarts.get_mut(&key) {
            restart.loaded();
        }
        self.start_handlers(key);
    }

    /// The host ended: the restarts waiting for it to load go on without it.
    pub(in crate::actor) fn restart_without_host(&mut self) {
        let reloading: Vec<OpKey> = self
            .ops
            .restarts
            .iter()
            .filter_map(|(key, restart)| restart.is_reloading().then_some(*key))
            .collect();
        for key in reloading {
            self.restart_without_reload(key);
        }
    }

    /// A restart whose extensions are not loaded afresh (none, or no live host) goes on.
    pub(in crate::actor) fn restart_without_reload(&mut self, key: OpKey) {
        if let Some(restart) = self.ops.restarts.get_mut(&key) {
            restart.loaded();
        }
        self.start_handlers(key);
    }

    /// Emits `session_start` to the new instances (as often as the restart says), then answers
    /// the change; a `ctx.newSession`'s `setup` runs first.
    pub(in crate::actor) fn start_handlers(&mut self, key: OpKey) {
        let Some(restart) = self.ops.restarts.get_mut(&key) else {
            return;
        };
        if let (RestartState::StartHandlers { .. }, Some(token)) =
            (restart.state, restart.setup.take())
        {
            let header = self.store.header().clone();
            let event = HostEvent::SessionSetup {
                token: &token,
                header: &header,
                entries: self
                    .store
                    .entries()
                    .iter()
                    .map(|entry| entry.raw())
                    .collect(),
                session_file: self
                    .store
                    .session_file()
                    .map(|file| file.display().to_string()),
                session_dir: self.store.session_dir().display().to_string(),
                cwd: self.store.cwd().display().to_string(),
                persisted: self.store.is_persisted(),
            };
            if self.ask_host_op(OpRoute::Setup(key), &event) {
                return;
            }
        }
        // Each `session_start` is followed by `resources_discover`, as the reference binds the
        // new instances.
        loop {
            let Some(restart) = self.ops.restarts.get_mut(&key) else {
                return;
            };
            match restart.state {
                RestartState::StartHandlers { left } if left > 0 => {
                    restart.state = RestartState::Discover { left: left - 1 };
                    let event = HostEvent::SessionStart {
                        reason: restart.reason,
                        previous_session_file: restart.previous.clone(),
                    };
                    if self.send_op_event(OpRoute::Restart(key), &event) {
                        return;
                    }
                }
                RestartState::Discover { left } => {
                    restart.state = RestartState::StartHandlers { left };
                    let reason = if restart.reason == "reload" {
                        "reload"
                    } else {
                        "startup"
                    };
                    if self.ask_resources_discover(OpRoute::Discover(key), reason) {
                        return;
                    }
                }
                RestartState::StartHandlers { .. } | RestartState::Reloading => break,
            }
        }
        let Some(restart) = self.ops.restarts.remove(&key) else {
            return;
        };
        match restart.answer {
            // A command's `ctx` call resolves with the answer instead.
            Answer::Host(reply) => {
                self.reply_value_to_host(&reply, &ReplyValue::Data(restart.data));
            }
            Answer::Client(id, command) => self.respond(id, command, &restart.data),
        }
    }
}

impl State {
    /// The `resources_discover` handlers after a `session_start` of restart `key` answered
    /// (nothing when the host ended): their skills and prompt templates are added, then the
    /// restart goes on.
    pub(in crate::actor) fn restart_resources_discovered(
        &mut self,
        key: OpKey,
        found: crate::extensions::DiscoveredResources,
    ) {
        self.add_discovered_resources(&found);
        self.start_handlers(key);
    }

    /// A `ctx.newSession`'s `setup` ran: the entries it appended join the new session (one
    /// the session refuses is logged and left out), the conversation is rebuilt from it as
    /// pi's is, then `session_start` follows.
    pub(in crate::actor) fn setup_done(&mut self, key: OpKey, result: SetupResult) {
        for entry in result.entries {
            if let Err(error) = self.store.append_given(entry) {
                tracing::warn!(%error, "an entry a session setup appended");
            }
        }
        self.messages = self.store.build_context().messages;
        self.session_name = self.store.session_name();
        self.start_handlers(key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_client_command_starts_the_new_instances_twice_a_ctx_call_once() {
        let client = Answer::Client(None, "new_session");
        let mut restart = Restart::reloading(client, Value::Null, "new", None);
        assert!(restart.is_reloading());
        assert_eq!(
            restart.gates(),
            Gates::NO_LINES,
            "lines wait for the reload"
        );
        restart.loaded();
        assert_eq!(restart.state, RestartState::StartHandlers { left: 2 });
        assert_eq!(restart.gates(), Gates::OPEN);

        let host = Answer::Host("reply-1".into());
        let mut restart = Restart::reloading(host, Value::Null, "reload", None);
        restart.loaded();
        assert_eq!(restart.state, RestartState::StartHandlers { left: 1 });
    }
}
