//! Components: they draw what they are given and report what the user did. No parsing here.

mod drop_overlay;
mod error_panel;
mod events_table;
mod fact;
mod features_list;
mod loading;
mod metadata;
mod toolbar;
mod warnings;
mod welcome;

pub use drop_overlay::DropOverlay;
pub use error_panel::ErrorPanel;
pub use events_table::EventsTable;
pub use fact::Fact;
pub use features_list::FeaturesList;
pub use loading::LoadingView;
pub use metadata::Metadata;
pub use toolbar::Toolbar;
pub use warnings::Warnings;
pub use welcome::Welcome;
