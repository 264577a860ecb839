//! Labels set on entries (`label` entries), by target id.

/// Labels by target id, in the order the reference's `Map` keeps them (first set first; a
/// cleared label set again goes last): target, label, when it was set.
#[derive(Debug, Clone, Default)]
pub(super) struct Labels(Vec<(String, String, String)>);

impl Labels {
    pub(super) fn set(&mut self, target: &str, label: Option<&str>, at: &str) {
        let position = self.0.iter().position(|(id, _, _)| id == target);
        match (label.filter(|text| !text.is_empty()), position) {
            (Some(text), Some(index)) => {
                self.0[index] = (target.into(), text.into(), at.into());
            }
            (Some(text), None) => self.0.push((target.into(), text.into(), at.into())),
            (None, Some(index)) => {
                self.0.remove(index);
            }
            (None, None) => {}
        }
    }

    pub(super) fn get(&self, target: &str) -> Option<(&str, &str)> {
        self.0
            .iter()
            .find(|(id, _, _)| id == target)
            .map(|(_, label, at)| (label.as_str(), at.as_str()))
    }

    pub(super) fn iter(&self) -> impl Iterator<Item = &(String, String, String)> {
        self.0.iter()
    }

    pub(super) fn clear(&mut self) {
        self.0.clear();
    }
}
