//! The providers the extensions' factories registered (`pi.registerProvider(name, config)`),
//! applied to the model registry once the extensions are loaded and before the start-up model
//! is chosen, as the reference flushes its queue.

use super::protocol::ProviderRegistration;
use crate::config::ModelRegistry;

/// Applies `registrations` to `registry` in order; gives the ones refused, each as the
/// reference reports it at start-up (`Extension "<path>" error: <why>`).
pub fn apply_providers(
    registrations: &[ProviderRegistration],
    registry: &mut ModelRegistry,
) -> Vec<String> {
    registrations
        .iter()
        .filter_map(|registration| {
            registry
                .register_extension_provider(&registration.name, &registration.config)
                .err()
                .map(|error| {
                    format!(
                        "Extension \"{}\" error: {error}",
                        registration.extension_path
                    )
                })
        })
        .collect()
}
