import type Docker from 'dockerode'
import { unretryable } from '../unretryable.ts'
import { DockerEngineError, statusOf, type EngineCall } from './engine-calls.ts'

/** A registry that is busy or slow may answer next time; anything else it says about the image, it will say again. */
const PASSING = /toomanyrequests|too many requests|timeout|timed out|temporar|503 Service|502 Bad/i

export const IMAGE_UNAVAILABLE = 'The ERP software for this version is not available on the hosting platform; support has to provide it before the instance can be created.'

/** Makes sure `image` is in the engine: already there, or pulled once; else a clear error. */
export async function ensureImage (docker: Docker, call: EngineCall, image: string, pullTimeoutMs: number): Promise<void> {
  try {
    // dockerode takes an abortSignal here; @types/dockerode does not say so.
    const found = docker.getImage(image) as unknown as { inspect: (opts: { abortSignal: AbortSignal }) => Promise<unknown> }
    await call('image inspect', image, (signal) => found.inspect({ abortSignal: signal }))
    return
  } catch (error) {
    if (statusOf(error) !== 404) throw error
  }
  try {
    await call('pull', image, async (signal) => {
      const stream = await docker.pull(image, { abortSignal: signal }) as NodeJS.ReadableStream
      // Pull failures often arrive as an `error` event in the progress stream, after a 200.
      await new Promise<void>((resolve, reject) => {
        docker.modem.followProgress(stream, (err: Error | null) => err === null ? resolve() : reject(err))
      })
    }, pullTimeoutMs)
  } catch (error) {
    if (!(error instanceof DockerEngineError)) throw error
    const failure = new DockerEngineError('pull', image,
      `image ${image} is not in the Docker engine and could not be pulled (${error.message}); ` +
      'pull or build it on the Docker host, or check the image template (ERP_IMAGE)', error.statusCode, { cause: error })
    throw PASSING.test(error.message) ? failure : unretryable(failure, IMAGE_UNAVAILABLE)
  }
}
