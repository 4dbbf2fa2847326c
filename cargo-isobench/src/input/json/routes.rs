//! Which keys' values pass from input to output unparsed, and in which style.

use isobench_core::codec::JsonStyle;
use isobench_core::passthrough::Route;

/// A conversion's routes (see [`isobench_core::passthrough`]), and the style of the
/// output their values pass into.
#[derive(Debug, Clone, Copy)]
pub struct Routes<'k> {
    /// The routes.
    pub routes: &'k [Route<'k>],
    /// The output's style, which a passed list's text must be in.
    pub style: JsonStyle,
}

impl<'k> Routes<'k> {
    /// Nothing passes.
    pub const NONE: Routes<'static> = Routes {
        routes: &[],
        style: JsonStyle::Compact,
    };

    /// The route of the input key `key`, and its index.
    pub(super) fn get(&self, key: &str) -> Option<(usize, Route<'k>)> {
        let index = self.routes.iter().position(|r| r.key == key)?;
        Some((index, self.routes[index]))
    }

    /// Whether nothing passes.
    pub(super) fn is_empty(&self) -> bool {
        self.routes.is_empty()
    }
}
