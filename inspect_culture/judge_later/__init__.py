"""Judge an lm-eval run after the fact: read the generations an lm-eval run logged with
`--log_samples` under `judge_later`, judge them (concurrently or through the OpenAI Batch API)
with each benchmark's own filter, `process_results` and aggregations, and write a results folder
in lm-eval's layout. Keeping the benchmarks' functions as the only scoring path makes the numbers
equal those of a judge run inside lm-eval, by construction."""
