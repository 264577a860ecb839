// `pi.events` (appended to host.mjs): the event bus the extensions share, as pi's. A handler's
// failure is written to stderr, not thrown to the emitter; the subscriptions of extensions that
// are replaced (a reload, a replaced session) are dropped with them, the bus stays.

import { EventEmitter } from "node:events";

const eventBus = new EventEmitter();
eventBus.setMaxListeners(0);

/** How to drop each live subscription. */
const busSubscriptions = new Set();

/** The `pi.events` of one extension. */
function eventsApi(extension) {
	const active = () => {
		if (extension.stale) throw new Error(STALE_CONTEXT);
	};
	return {
		emit(channel, data) {
			active();
			eventBus.emit(channel, data);
		},
		on(channel, handler) {
			active();
			const guarded = async (data) => {
				try {
					await handler(data);
				} catch (error) {
					console.error(`Event handler error (${channel}):`, error);
				}
			};
			eventBus.on(channel, guarded);
			let subscribed = true;
			const unsubscribe = () => {
				if (!subscribed) return;
				subscribed = false;
				busSubscriptions.delete(unsubscribe);
				eventBus.off(channel, guarded);
			};
			busSubscriptions.add(unsubscribe);
			return unsubscribe;
		},
	};
}

/** Drops the subscriptions of the extensions being replaced. */
function dropBusSubscriptions() {
	for (const unsubscribe of [...busSubscriptions]) unsubscribe();
}
