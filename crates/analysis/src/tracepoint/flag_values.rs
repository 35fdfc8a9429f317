//! The constant values of `__print_flags` / `__print_symbolic` entries (`{ value, "name" }`),
//! folded when the print format is parsed as libtraceevent's `process_fields` folds them
//! (`arg_eval`, `arg_num_eval`, `eval_flag`).

use super::lexer::strtoull;
use super::print_fmt::Arg;

/// libtraceevent's `arg_eval`: the text of a constant flag value or name. Atoms are their own
/// text; operators are evaluated (`arg_num_eval`, signed) and printed in decimal.
pub fn arg_eval(arg: &Arg) -> Option<String> {
    match arg {
        Arg::Atom(s) => Some(s.clone()),
        Arg::Typecast { item, .. } => arg_eval(item),
        Arg::Unary(..) | Arg::Binary(..) => Some(arg_num_eval(arg)?.to_string()),
        _ => None,
    }
}

/// libtraceevent's `arg_num_eval`: signed constant folding of the operators it knows.
fn arg_num_eval(arg: &Arg) -> Option<i64> {
    Some(match arg {
        Arg::Atom(s) => strtoull(s) as i64,
        Arg::Typecast { ty, item } => {
            super::eval::eval_type(arg_num_eval(item)? as u64, ty, false) as i64
        }
        Arg::Unary(op, r) => {
            let r = arg_num_eval(r)?;
            match op.as_str() {
                "-" => r.wrapping_neg(),
                "+" => r,
                "~" => !r,
                _ => return None,
            }
        }
        Arg::Binary(op, l, r) => {
            let (l, r) = (arg_num_eval(l)?, arg_num_eval(r)?);
            match op.as_str() {
                "|" => l | r,
                "||" => i64::from(l != 0 || r != 0),
                "&" => l & r,
                "&&" => i64::from(l != 0 && r != 0),
                "<" => i64::from(l < r),
                "<<" => l.wrapping_shl(r as u32),
                "<=" => i64::from(l <= r),
                ">" => i64::from(l > r),
                ">>" => l.wrapping_shr(r as u32),
                ">=" => i64::from(l >= r),
                "==" => i64::from(l == r),
                "!=" => i64::from(l != r),
                "-" => l.wrapping_sub(r),
                "+" => l.wrapping_add(r),
                _ => return None,
            }
        }
        _ => return None,
    })
}

/// libtraceevent's `eval_flag`: a number when the text starts with a digit, else one of the
/// softirq / hrtimer names it knows, else -1.
pub fn eval_flag(text: &str) -> i64 {
    if text.starts_with(|c: char| c.is_ascii_digit()) {
        return strtoull(text) as i64;
    }
    const NAMES: [(&str, i64); 12] = [
        ("HI_SOFTIRQ", 0),
        ("TIMER_SOFTIRQ", 1),
        ("NET_TX_SOFTIRQ", 2),
        ("NET_RX_SOFTIRQ", 3),
        ("BLOCK_SOFTIRQ", 4),
        ("IRQ_POLL_SOFTIRQ", 5),
        ("TASKLET_SOFTIRQ", 6),
        ("SCHED_SOFTIRQ", 7),
        ("HRTIMER_SOFTIRQ", 8),
        ("RCU_SOFTIRQ", 9),
        ("HRTIMER_NORESTART", 0),
        ("HRTIMER_RESTART", 1),
    ];
    NAMES
        .iter()
        .find(|(n, _)| *n == text)
        .map_or(-1, |(_, v)| *v)
}
