//! [`RowScroll`]: how the records table's scroller maps its pixels to rows. Browsers cap an
//! element's height (Chromium near 33.5M px, Firefox near 17.9M), so a spacer of 22 px a row
//! for millions of records would leave the rows past ~1.5M out of reach; past [`MAX_SPACER`]
//! the spacer stays that tall and its scroll range is spread over the rows.

/// Row height, CSS px (must match `.records-table .row` in the stylesheet).
pub const ROW_HEIGHT: f64 = 22.0;

/// The tallest spacer drawn (181 818 rows at their own height; more are scaled).
pub const MAX_SPACER: f64 = 4_000_000.0;

/// The records scroller's geometry: `matching` rows, `visible` of them in its height.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RowScroll {
    /// Rows in the table.
    pub matching: u64,
    /// Rows that fit the scroller's height.
    pub visible: u64,
}

impl RowScroll {
    /// The spacer's height, px.
    pub fn spacer(&self) -> f64 {
        (self.matching as f64 * ROW_HEIGHT).min(MAX_SPACER)
    }

    fn scaled(&self) -> bool {
        self.matching as f64 * ROW_HEIGHT > MAX_SPACER
    }

    /// The scroll range (px) and the first rows it reaches (the last one shows the last row at
    /// the bottom).
    fn ranges(&self) -> (f64, u64) {
        let px = (self.spacer() - self.visible as f64 * ROW_HEIGHT).max(1.0);
        (px, self.matching.saturating_sub(self.visible))
    }

    /// The first row shown at `scroll_top`.
    pub fn row_at(&self, scroll_top: f64) -> u64 {
        let s = scroll_top.max(0.0);
        if !self.scaled() {
            return (s / ROW_HEIGHT).floor() as u64;
        }
        let (px, rows) = self.ranges();
        ((s / px * rows as f64).round() as u64).min(rows)
    }

    /// The scroll position that shows `row` first.
    pub fn scroll_top(&self, row: u64) -> f64 {
        if !self.scaled() {
            return row as f64 * ROW_HEIGHT;
        }
        let (px, rows) = self.ranges();
        row.min(rows) as f64 / rows.max(1) as f64 * px
    }

    /// Where row `row` is drawn in the spacer when `first` is the first row shown.
    pub fn row_top(&self, row: u64, first: u64) -> f64 {
        if !self.scaled() {
            return row as f64 * ROW_HEIGHT;
        }
        self.scroll_top(first) + row.saturating_sub(first) as f64 * ROW_HEIGHT
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_table_scrolls_a_row_every_row_height() {
        let s = RowScroll {
            matching: 1000,
            visible: 20,
        };
        assert_eq!(s.spacer(), 22_000.0);
        assert_eq!(s.row_at(0.0), 0);
        assert_eq!(s.row_at(21.9), 0);
        assert_eq!(s.row_at(22.0 * 37.0), 37);
        assert_eq!(s.scroll_top(37), 814.0);
        assert_eq!(s.row_top(40, 37), 880.0);
    }

    #[test]
    fn three_million_rows_are_all_reached_within_the_tallest_spacer() {
        // big300-z's 3 261 622 records: 71.8M px at 22 px a row, more than a browser draws.
        let s = RowScroll {
            matching: 3_261_622,
            visible: 25,
        };
        assert_eq!(s.spacer(), MAX_SPACER);
        // The top shows the first row; the end of the range (spacer less the rows shown) the
        // last rows, the last at the bottom.
        let end = MAX_SPACER - 25.0 * ROW_HEIGHT;
        assert_eq!(s.row_at(0.0), 0);
        assert_eq!(s.row_at(end), 3_261_622 - 25);
        assert_eq!(s.row_at(end + 1000.0), 3_261_622 - 25);
        assert_eq!(s.row_top(3_261_621, 3_261_597), MAX_SPACER - ROW_HEIGHT);
        // The middle of the range, the middle rows; each pixel ~0.82 rows further, in order.
        assert_eq!(s.row_at(end / 2.0), 1_630_799); // 3 261 597 / 2, rounded
        let mut last = 0;
        for px in (0..4_000).map(|k| f64::from(k) * 997.3) {
            let row = s.row_at(px);
            assert!(row >= last, "{px} px: row {row} before {last}");
            last = row;
            // The position of a row's scroll maps back to it.
            assert_eq!(s.row_at(s.scroll_top(row)), row);
        }
    }
}
