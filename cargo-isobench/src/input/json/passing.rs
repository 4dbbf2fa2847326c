//! Which keys' values pass from input to output unparsed, and in which style.

use isobench_core::codec::JsonStyle;

/// An input key whose value may pass from input to output unparsed (see
/// [`isobench_core::passthrough`]): a string, or, for a `list` key, a list of strings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PassKey<'k> {
    /// The input key.
    pub key: &'k str,
    /// Whether the canonical field it lands in holds a list of strings.
    pub list: bool,
}

/// The keys whose values pass, and the style of the output they pass into.
#[derive(Debug, Clone, Copy)]
pub struct Passing<'k> {
    /// The keys.
    pub keys: &'k [PassKey<'k>],
    /// The output's style, which a passed list's text must be in.
    pub style: JsonStyle,
}

impl<'k> Passing<'k> {
    /// Nothing passes.
    pub const NONE: Passing<'static> = Passing {
        keys: &[],
        style: JsonStyle::Compact,
    };

    pub(super) fn get(&self, key: &str) -> Option<PassKey<'k>> {
        self.keys.iter().find(|k| k.key == key).copied()
    }
}
