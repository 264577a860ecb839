// pi-agent's `@earendil-works/pi-ai/oauth` for extensions. In pi 0.84.1 this entry exports
// nothing at run time (it holds only types), so neither does this module.
export {};
