/**
 * Profiles from a model's and a GPU's facts ({@code smetric-audit profiles derive}): a Hugging Face
 * {@code config.json} read into {@link io.smetric.audit.replay.derive.ModelFacts} (weights, KV bytes
 * per token, FLOPs per token and per attention pair), a GPU table with datasheet sources
 * ({@link io.smetric.audit.replay.derive.GpuSpec}), efficiency factors learned from the shipped
 * calibrated profiles ({@link io.smetric.audit.replay.derive.Efficiency}) and the profile they give
 * ({@link io.smetric.audit.replay.derive.ProfileDeriver}); the error of the method is stated by
 * cross-validation ({@link io.smetric.audit.replay.derive.CrossValidation}: each calibrated profile
 * derived from the others and replayed against its own runs). docs/replay.md, docs/validation.md.
 */
package io.smetric.audit.replay.derive;
