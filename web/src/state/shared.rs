//! [`Shared`]: an `Rc` that compares by identity.
//!
//! Yew compares a component's props on every render of its parent to decide whether to render it
//! again. `Rc<T>` compares the values behind the pointers unless `T: Eq` — for the summary, the
//! profile's string table and the worker's replies (floats inside, so not `Eq`) that walked
//! hundreds of thousands of strings and numbers on every zoom step. The worker's answers are
//! immutable once received, and a new answer is a new allocation, so identity is equality here.

use std::fmt;
use std::ops::Deref;
use std::rc::Rc;

/// A reference-counted, immutable value whose `==` is pointer identity.
pub struct Shared<T>(Rc<T>);

impl<T> Shared<T> {
    /// Wraps `value`.
    pub fn new(value: T) -> Shared<T> {
        Shared(Rc::new(value))
    }

    /// The identity of the value (its address), e.g. as a memo key.
    pub fn id(this: &Self) -> usize {
        Rc::as_ptr(&this.0) as usize
    }
}

impl<T> Clone for Shared<T> {
    fn clone(&self) -> Self {
        Shared(Rc::clone(&self.0))
    }
}

impl<T> Deref for Shared<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T> PartialEq for Shared<T> {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

impl<T: Default> Default for Shared<T> {
    fn default() -> Self {
        Shared::new(T::default())
    }
}

impl<T: fmt::Debug> fmt::Debug for Shared<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_only_to_its_clones() {
        let a = Shared::new(vec![1.0, 2.0]);
        let b = Shared::new(vec![1.0, 2.0]);
        assert!(a == a.clone());
        assert!(
            a != b,
            "equal values in two allocations are different answers"
        );
        assert_eq!(*a, *b);
    }
}
