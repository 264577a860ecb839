//! The steering and follow-up queues: `steer` and `follow_up` (announced at once, answered
//! after the read's last line), `set_steering_mode`, `set_follow_up_mode` and `clear_queue`.

use pi_rpc_protocol::command::{QueueMessageCommand, SetQueueModeCommand, StreamingBehavior};
use pi_rpc_protocol::{RequestId, Response};
use serde_json::json;

use crate::actor::State;
use crate::actor::queue::user_message;
use crate::release::Feature;

impl State {
    pub(super) fn steer_command(&mut self, id: Option<RequestId>, mut queued: QueueMessageCommand) {
        queued.message = self.resources.expand(&queued.message);
        self.queue_message(queued, StreamingBehavior::Steer);
        self.answer_queued(id, "steer");
    }

    pub(super) fn follow_up_command(
        &mut self,
        id: Option<RequestId>,
        mut queued: QueueMessageCommand,
    ) {
        queued.message = self.resources.expand(&queued.message);
        self.queue_message(queued, StreamingBehavior::FollowUp);
        self.answer_queued(id, "follow_up");
    }

    pub(super) fn set_steering_mode_command(
        &mut self,
        id: Option<RequestId>,
        set: SetQueueModeCommand,
    ) {
        self.steering_mode = set.mode;
        self.config.settings.set_steering_mode(set.mode);
        self.write(Response::ok(id, "set_steering_mode"));
    }

    pub(super) fn set_follow_up_mode_command(
        &mut self,
        id: Option<RequestId>,
        set: SetQueueModeCommand,
    ) {
        self.follow_up_mode = set.mode;
        self.config.settings.set_follow_up_mode(set.mode);
        self.write(Response::ok(id, "set_follow_up_mode"));
    }

    /// `clear_queue` (0.84.4): every queued steering and follow-up message leaves its queue;
    /// `queue_update` says so, then the answer lists the texts taken.
    pub(super) fn clear_queue_command(&mut self, id: Option<RequestId>) {
        if !self.known_in_release(&id, "clear_queue", Feature::ClearQueue) {
            return;
        }
        let steering = std::mem::take(&mut self.steering_texts);
        let follow_up = std::mem::take(&mut self.follow_up_texts);
        self.steering_queue.clear();
        self.follow_up_queue.clear();
        self.emit_queue_update();
        let data = json!({"steering": steering, "followUp": follow_up});
        self.respond(id, "clear_queue", &data);
    }

    /// Queues a message (a `steer`, a `follow_up`, or a prompt during a run) and announces it.
    pub(in crate::actor) fn queue_message(
        &mut self,
        queued: QueueMessageCommand,
        behavior: StreamingBehavior,
    ) {
        let text = queued.message.clone();
        let message = user_message(queued.message, queued.images);
        match behavior {
            StreamingBehavior::Steer => {
                self.steering_texts.push(text);
                self.emit_queue_update();
                self.steering_queue.push_back(message);
            }
            StreamingBehavior::FollowUp => {
                self.follow_up_texts.push(text);
                self.emit_queue_update();
                self.follow_up_queue.push_back(message);
            }
        }
    }
}
